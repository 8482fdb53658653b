#!/usr/bin/env node
// Stages the two images' build contexts on the host, so that `podman build` / `docker build`
// only copy files (they run with --network none):
//   OUT/control-plane/  package.json, node_modules (production), dist/ (compiled code, dashboard,
//                       embedded database template; no source maps)
//   OUT/agent/          node_modules (the packages the agent bundle leaves out), app/ (the
//                       bundle, as in the Debian package: deploy/agent-bundle.mjs)
//   node deploy/container/stage.mjs --node-dir DIR --out OUT
// Runs after `npm run build` and the dashboard's build. DIR is the image's Node.js package
// (base.sh prints it): npm compiles the native add-ons with that runtime and its headers, so
// they load in the image whatever Node.js the host has. node_modules is installed from the
// repository's lock file, and kept while package.json, the lock file and the runtime are unchanged.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sourceHash, staleness, writeStamp } from '../../scripts/source-stamp.mjs';
import { bundleAgent, UNBUNDLED_PACKAGES } from '../agent-bundle.mjs';
import { agentPackage } from '../agent-package.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const log = (message) => process.stderr.write(`stage: ${message}\n`);

/** The compiled folders the control plane loads (it runs the embedded agent's code too). */
const CONTROL_PLANE_DIST = ['control-plane', 'shared', 'agent', 'web', 'pglite-template'];
/** What tsc and the build scripts leave beside the code that the image does not need. */
const NOT_SHIPPED = /(\.js\.map|\.tsbuildinfo|\.source-hash)$/;

function run(command, args, options) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
}

/** A package.json for the image: the repository's metadata with only `dependencies`. */
function runtimePackage(dependencies) {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  // The name stays "outpost": the code finds its version and dist/ by that name.
  return { name: pkg.name, version: pkg.version, private: true, type: pkg.type, engines: pkg.engines, dependencies, allowScripts: pkg.allowScripts };
}

/** `dir`/node_modules for `pkg`, at the lock file's versions, compiled for the runtime in nodeDir; reused when its inputs are unchanged. */
async function installModules(dir, pkg, nodeDir) {
  mkdirSync(dir, { recursive: true });
  const manifest = `${JSON.stringify(pkg, null, 2)}\n`;
  const stampFile = path.join(dir, '.modules-hash');
  const hash = `${await sourceHash(root, [path.join(root, 'package-lock.json'), path.join(root, '.npmrc')])} ${createHash('sha256').update(manifest).digest('hex')} ${nodeDir}`;
  if ((await staleness({ hash, stampFile, outputs: [path.join(dir, 'node_modules')] })) === null) return log(`${path.relative(root, dir)}/node_modules is up to date`);
  rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
  rmSync(stampFile, { force: true });
  writeFileSync(path.join(dir, 'package.json'), manifest);
  copyFileSync(path.join(root, 'package-lock.json'), path.join(dir, 'package-lock.json'));
  copyFileSync(path.join(root, '.npmrc'), path.join(dir, '.npmrc'));
  log(`installing ${Object.keys(pkg.dependencies).length} packages into ${path.relative(root, dir)}/node_modules`);
  const env = { ...process.env, PATH: `${path.join(nodeDir, 'bin')}:${process.env.PATH}`, npm_config_nodedir: nodeDir, npm_config_update_notifier: 'false' };
  run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund'], { cwd: dir, env });
  rmSync(path.join(dir, 'package-lock.json'));
  rmSync(path.join(dir, '.npmrc'));
  await writeStamp(stampFile, hash);
}

async function stageControlPlane(out, nodeDir) {
  const dir = path.join(out, 'control-plane');
  const pkg = runtimePackage(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).dependencies);
  await installModules(dir, pkg, nodeDir);
  rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
  for (const part of CONTROL_PLANE_DIST) {
    const from = path.join(root, 'dist', part);
    if (!existsSync(from)) throw new Error(`dist/${part} is missing: run npm run build and node scripts/build-web.mjs first`);
    // Their times kept: an unchanged dist/ makes the same layer, which the engine reuses.
    cpSync(from, path.join(dir, 'dist', part), { recursive: true, preserveTimestamps: true, filter: (file) => !NOT_SHIPPED.test(file) });
  }
  readableByAll(path.join(dir, 'dist'));
  log(`${path.relative(root, dir)} staged`);
}

/** The image runs as a user who owns none of the code, and PGlite writes some template files 0600. */
function readableByAll(dir) {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    chmodSync(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
  }
}

async function stageAgent(out, nodeDir) {
  const dir = path.join(out, 'agent');
  const pkg = agentPackage(path.join('agent', 'src', 'cli.ts'));
  const unbundled = Object.fromEntries(UNBUNDLED_PACKAGES.map((name) => {
    if (!pkg.dependencies[name]) throw new Error(`${name} is no longer imported by the agent: update UNBUNDLED_PACKAGES in deploy/agent-bundle.mjs`);
    return [name, pkg.dependencies[name]];
  }));
  await installModules(dir, runtimePackage(unbundled), nodeDir);
  const app = path.join(dir, 'app');
  rmSync(app, { recursive: true, force: true });
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: 'module' }, null, 2)}\n`);
  const nodeMajor = JSON.parse(readFileSync(path.join(nodeDir, 'package.json'), 'utf8')).version.split('.')[0];
  await bundleAgent({ entryPoints: { cli: path.join(root, 'agent', 'src', 'cli.ts') }, outdir: app, nodeMajor });
  log(`${path.relative(root, dir)} staged`);
}

const { values } = parseArgs({ options: { 'node-dir': { type: 'string' }, out: { type: 'string' } } });
if (!values['node-dir'] || !values.out) {
  process.stderr.write('usage: node deploy/container/stage.mjs --node-dir DIR --out OUT\n');
  process.exit(2);
}
try {
  const out = path.resolve(values.out);
  const nodeDir = path.resolve(values['node-dir']);
  await stageControlPlane(out, nodeDir);
  await stageAgent(out, nodeDir);
} catch (err) {
  process.stderr.write(`stage: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
