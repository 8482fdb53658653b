#!/usr/bin/env node
// Compiles the TypeScript into dist/ only when the sources changed since the last build (or a
// part of it is missing), so `npm start` and `npm run agent` start from the build in a second
// instead of running tsc each time; `--force` compiles regardless (`npm run build`). tsc runs
// incrementally (a change to one feature recompiles in a few seconds, not the whole project)
// unless outputs are missing or a full build is asked for: its build info does not notice a
// deleted output.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceHash, staleness, writeStamp } from './source-stamp.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const stampFile = join(dist, '.source-hash');
const buildInfo = join(dist, '.tsbuildinfo');
// What tsconfig.json compiles, and what decides how.
const sources = ['shared/src', 'control-plane/src', 'agent/src', 'cli/src', 'tsconfig.json', 'package-lock.json'].map((p) => join(root, p));
const outputs = ['control-plane/src/main.js', 'agent/src/cli.js', 'cli/src/main.js'].map((p) => join(dist, p));

const hash = await sourceHash(root, sources);
const force = process.argv.includes('--force');
const reason = force ? 'asked to' : await staleness({ hash, stampFile, outputs });
if (reason) {
  console.log(`compiling TypeScript into dist/ (${reason})`);
  if (force || reason.endsWith('is missing')) rmSync(buildInfo, { force: true });
  let tsc;
  try {
    tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    console.error('dist/ needs building and TypeScript is not installed: run `npm install` (with dev dependencies) first.');
    process.exit(1);
  }
  const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json'), '--incremental', '--tsBuildInfoFile', buildInfo], { stdio: 'inherit' });
  if (compiled.status !== 0) process.exit(compiled.status ?? 1);
  await writeStamp(stampFile, hash);
}
