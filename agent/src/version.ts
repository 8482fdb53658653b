// The package's root folder and version, found by walking up from this file so they resolve
// the same from the TypeScript sources, the compiled dist/ tree and the Debian package's
// bundle (whose package.json also says where the package installed it).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface FoundPackage {
  root: string;
  version: string;
  installDir?: string;
}

function findPackage(): FoundPackage {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string; outpostAgentPackage?: { installDir?: string } };
      if (pkg.name === 'outpost' && pkg.version) return { root: dir, version: pkg.version, installDir: pkg.outpostAgentPackage?.installDir };
    }
    dir = path.dirname(dir);
  }
  return { root: process.cwd(), version: '0.0.0-unknown' };
}

const found = findPackage();

export const AGENT_VERSION = found.version;
export const PACKAGE_ROOT = found.root;
/** Set when this agent runs from the Debian package (deploy/debian): its unit is the package's. */
export const PACKAGED_INSTALL_DIR = found.installDir;
