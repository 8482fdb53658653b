// The first load of the dashboard (the entry, what it imports statically, the signed-in
// overview's chunk and the stylesheets) stays within 250 KB of JavaScript after gzip.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildDashboard } from '../support/browser.js';

interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
  isEntry?: boolean;
}

const BUDGET_BYTES = 250 * 1024;
const webDir = fileURLToPath(new URL('../../dist/web/', import.meta.url));

describe('dashboard bundle budget', () => {
  it('loads the overview with at most 250 KB of gzipped JavaScript', function () {
    this.timeout(120_000);
    buildDashboard();
    const manifest = JSON.parse(readFileSync(path.join(webDir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
    const needed = new Set<string>();
    const visit = (key: string) => {
      if (needed.has(key)) return;
      const chunk = manifest[key];
      expect(chunk, `manifest entry ${key}`).to.exist;
      needed.add(key);
      for (const imported of chunk!.imports ?? []) visit(imported);
    };
    visit('index.html');
    visit('src/pages/services/overview.tsx');
    visit('src/pages/auth/sign-in.tsx');

    const files = [...needed].map((key) => manifest[key]!.file);
    const gzipped = files.filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gzipSync(readFileSync(path.join(webDir, f))).length, 0);
    console.log(`      first load: ${files.length} chunks, ${(gzipped / 1024).toFixed(1)} KB of JavaScript after gzip (budget 250 KB)`);
    expect(gzipped).to.be.at.most(BUDGET_BYTES);
  });
});
