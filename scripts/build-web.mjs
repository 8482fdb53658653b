#!/usr/bin/env node
// Builds the dashboard (control-plane/web) into dist/web when the build is missing or its
// sources changed since, so `npm start` always serves the dashboard of this checkout.
// `--force` builds regardless. Each asset also gets a .gz twin the server sends as is.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, constants } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));
const webRoot = join(root, 'control-plane', 'web');
const outDir = join(root, 'dist', 'web');
const stampFile = join(outDir, '.source-hash');

async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? (e.name === 'node_modules' ? [] : filesUnder(join(dir, e.name))) : [join(dir, e.name)])),
  );
  return nested.flat().sort();
}

async function sourceHash() {
  const hash = createHash('sha256');
  // The dashboard imports the API's check catalogue from shared/src.
  for (const file of [...(await filesUnder(webRoot)), join(root, 'shared', 'src', 'check-types.ts'), join(root, 'package-lock.json')]) {
    hash.update(relative(root, file)).update('\0').update(await readFile(file)).update('\0');
  }
  return hash.digest('hex');
}

async function compressAssets() {
  for (const file of await filesUnder(outDir)) {
    if (!/\.(js|css|html|svg|json|webmanifest|txt)$/.test(file)) continue;
    await writeFile(`${file}.gz`, gzipSync(await readFile(file), { level: constants.Z_BEST_COMPRESSION }));
  }
}

const force = process.argv.includes('--force');
const wanted = await sourceHash();
const built = existsSync(stampFile) ? (await readFile(stampFile, 'utf8')).trim() : undefined;
if (!force && built === wanted) process.exit(0);

let vite;
try {
  vite = await import('vite');
} catch {
  console.error('The dashboard needs building and Vite is not installed: run `npm install` (with dev dependencies) first.');
  process.exit(1);
}
console.log(built ? 'dashboard sources changed: building dist/web' : 'building the dashboard into dist/web');
await vite.build({ configFile: join(webRoot, 'vite.config.ts'), logLevel: 'warn' });
await compressAssets();
await writeFile(stampFile, `${wanted}\n`);
