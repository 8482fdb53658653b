#!/usr/bin/env node
// Builds the dashboard (control-plane/web) into dist/web when the build is missing or its
// sources changed since, so `npm start` always serves the dashboard of this checkout.
// `--force` builds regardless. Each asset also gets a .gz twin the server sends as is.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, constants } from 'node:zlib';
import { filesUnder, sourceHash, staleness, writeStamp } from './source-stamp.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const webRoot = join(root, 'control-plane', 'web');
const outDir = join(root, 'dist', 'web');
const stampFile = join(outDir, '.source-hash');
// The dashboard imports the API's check and assertion catalogues from shared/src.
const sources = [webRoot, join(root, 'shared', 'src', 'check-types.ts'), join(root, 'shared', 'src', 'assertion-catalogue.ts'), join(root, 'package-lock.json')];

async function compressAssets() {
  for (const file of await filesUnder(outDir)) {
    if (!/\.(js|css|html|svg|json|webmanifest|txt)$/.test(file)) continue;
    await writeFile(`${file}.gz`, gzipSync(await readFile(file), { level: constants.Z_BEST_COMPRESSION }));
  }
}

const hash = await sourceHash(root, sources);
const reason = process.argv.includes('--force') ? 'asked to' : await staleness({ hash, stampFile, outputs: [join(outDir, 'index.html')] });
if (!reason) process.exit(0);

let vite;
try {
  vite = await import('vite');
} catch {
  console.error('The dashboard needs building and Vite is not installed: run `npm install` (with dev dependencies) first.');
  process.exit(1);
}
console.log(`building the dashboard into dist/web (${reason})`);
await vite.build({ configFile: join(webRoot, 'vite.config.ts'), logLevel: 'warn' });
await compressAssets();
await writeStamp(stampFile, hash);
