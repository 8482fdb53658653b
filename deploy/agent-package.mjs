#!/usr/bin/env node
// Prints the package.json of the agent image: the repository's package.json cut down to the
// npm packages the agent's code imports, found by following its imports from the entry file
// (static, dynamic and require), so the slim image cannot drift from the code.
//   node deploy/agent-package.mjs [ENTRY]   (default dist/agent/src/cli.js)
// ENTRY may be the TypeScript source (agent/src/cli.ts): `x.js` imports then resolve to `x.ts`.
// Fails when the agent reaches a file outside agent/ and shared/, or a package that is not
// a production dependency. deploy/debian/build.mjs (the .deb) and deploy/container/stage.mjs
// (the agent image) import agentPackage().
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SPECIFIERS = [
  /^\s*(?:import|export)(?!\s+type\b)[^'"]*?\bfrom\s*['"]([^'"]+)['"]/gm,
  /^\s*import\s*['"]([^'"]+)['"]/gm,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
];
const ALLOWED_DIRS = [/^(dist\/)?agent\//, /^(dist\/)?shared\//];

function fail(message) {
  throw new Error(`agent-package: ${message}`);
}

function specifiersOf(file) {
  const text = readFileSync(file, 'utf8');
  return SPECIFIERS.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]));
}

function resolveRelative(from, specifier) {
  const target = resolve(dirname(from), specifier);
  if (existsSync(target)) return target;
  const source = target.replace(/\.js$/, '.ts');
  if (existsSync(source)) return source;
  return fail(`${relative(root, from)} imports ${specifier}, which does not exist`);
}

const packageName = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const isBuiltin = (specifier) => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]);

/** Every file reachable from the entry, and the packages they import. */
function walk(entry) {
  const files = new Set();
  const packages = new Set();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop();
    if (files.has(file)) continue;
    const where = relative(root, file);
    if (!ALLOWED_DIRS.some((dir) => dir.test(where))) fail(`the agent reaches ${where}, outside agent/ and shared/`);
    files.add(file);
    for (const specifier of specifiersOf(file)) {
      if (specifier.startsWith('.')) pending.push(resolveRelative(file, specifier));
      else if (!isBuiltin(specifier)) packages.add(packageName(specifier));
    }
  }
  return { files, packages };
}

/** The agent's package.json (an object) for the entry file, given relative to the repository. */
export function agentPackage(entryPath = join('dist', 'agent', 'src', 'cli.js')) {
  const entry = resolve(root, entryPath);
  if (!existsSync(entry)) fail(`${relative(root, entry)} does not exist (build first: npm run build)`);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const { packages } = walk(entry);
  const dependencies = {};
  for (const name of [...packages].sort()) {
    if (!pkg.dependencies?.[name]) fail(`the agent imports ${name}, which is not in package.json's dependencies`);
    dependencies[name] = pkg.dependencies[name];
  }
  return {
    // The agent finds its version by the name "outpost" (agent/src/version.ts).
    name: pkg.name,
    version: pkg.version,
    private: true,
    type: pkg.type,
    engines: pkg.engines,
    dependencies,
    bin: pkg.bin,
    // npm's approval of install scripts (net-ping's raw-socket, ssh2's cpu-features).
    allowScripts: pkg.allowScripts,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${JSON.stringify(agentPackage(process.argv[2]), null, 2)}\n`);
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
