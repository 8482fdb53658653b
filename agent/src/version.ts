// The package's root folder and version, found by walking up from this file so they resolve
// the same from the TypeScript sources and from the compiled dist/ tree.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackage(): { root: string; version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'outpost' && pkg.version) return { root: dir, version: pkg.version };
    }
    dir = path.dirname(dir);
  }
  return { root: process.cwd(), version: '0.0.0-unknown' };
}

const found = findPackage();

export const AGENT_VERSION = found.version;
export const PACKAGE_ROOT = found.root;
