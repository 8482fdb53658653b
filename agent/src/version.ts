// The agent's version is the package version, found by walking up from this file so that
// it resolves the same from the TypeScript sources and from the compiled dist/ tree.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'outpost' && pkg.version) return pkg.version;
    }
    dir = path.dirname(dir);
  }
  return '0.0.0-unknown';
}

export const AGENT_VERSION = findVersion();
