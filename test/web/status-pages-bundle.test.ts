// The public status page stays small and fast: its own lazy chunk (not part of the dashboard's
// first load), and its first load (the entry and everything the page imports) within the
// dashboard's budget, with little of its own on top of the entry.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildDashboard } from '../support/browser.js';

interface ManifestChunk {
  file: string;
  imports?: string[];
  dynamicImports?: string[];
}

const PUBLIC_PAGE = 'src/pages/public-status/public-status.tsx';
const FIRST_LOAD_BUDGET = 250 * 1024;
const OWN_BUDGET = 25 * 1024;
const webDir = fileURLToPath(new URL('../../dist/web/', import.meta.url));

describe('public status page bundle', () => {
  it('is a lazy chunk whose first load stays within the dashboard budget', function () {
    this.timeout(120_000);
    buildDashboard();
    const manifest = JSON.parse(readFileSync(path.join(webDir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
    const closure = (key: string, into = new Set<string>()): Set<string> => {
      if (into.has(key)) return into;
      expect(manifest[key], `manifest entry ${key}`).to.exist;
      into.add(key);
      for (const imported of manifest[key]!.imports ?? []) closure(imported, into);
      return into;
    };
    const gzipped = (keys: Iterable<string>) =>
      [...keys].map((k) => manifest[k]!.file).filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gzipSync(readFileSync(path.join(webDir, f))).length, 0);

    const entry = closure('index.html');
    expect(entry.has(PUBLIC_PAGE), 'the public page in the entry').to.equal(false);
    expect(manifest['index.html']!.dynamicImports).to.include(PUBLIC_PAGE);
    const page = closure(PUBLIC_PAGE);
    const own = [...page].filter((k) => !entry.has(k));
    const total = gzipped(new Set([...entry, ...page]));
    console.log(`      public page: ${(gzipped(own) / 1024).toFixed(1)} KB of its own, ${(total / 1024).toFixed(1)} KB first load (gzipped JavaScript)`);
    expect(gzipped(own)).to.be.at.most(OWN_BUDGET);
    expect(total).to.be.at.most(FIRST_LOAD_BUDGET);
  });
});
