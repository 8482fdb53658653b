// How the agent's code is bundled, shared by the Debian package (deploy/debian/build.mjs) and
// the agent benchmarks (bench/support/agent-under-test.ts), so that the benchmarks measure the
// code as the package ships it: the agent's own code and its pure-JS packages in one esbuild
// bundle, split so that each command and prober still loads on first use.
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';

/** Packages kept as node_modules: native add-ons (raw-socket under net-ping; ssh2's crypto
 * binding and optional cpu-features), which a bundle cannot hold, and radius, which reads its
 * attribute dictionaries from the files beside its code. */
export const UNBUNDLED_PACKAGES = ['net-ping', 'ssh2', 'radius'];
/** Optional peers of bundled packages, required only inside try/catch when present. */
const ABSENT_OPTIONAL = ['kerberos', '@mongodb-js/zstd', '@aws-sdk/credential-providers', 'gcp-metadata', 'snappy', 'socks', 'aws4', 'mongodb-client-encryption', 'pg-native', 'bufferutil', 'utf-8-validate'];

/**
 * zod exports every one of its ~40 locales as `z.locales`, and a bundle cannot leave out what
 * a namespace object exports: 267 KB of the agent's 470 KB of zod, and 0.9 MB of an idle
 * agent's RSS (P2). The agent only ever uses English (what zod configures itself with), so
 * the bundle's `z.locales` holds that one.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, ({ importer, path: specifier }) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(importer) ? { path: resolve(dirname(importer), specifier), namespace: 'zod-english-only' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, ({ path: index }) => ({ contents: "export { default as en } from './en.js';", resolveDir: dirname(index) }));
  },
};

/**
 * Bundles `entryPoints` ({ name: source file }) into `outdir` (name.js each, shared code in
 * chunks/) for Node.js `nodeMajor`. The unbundled packages must resolve from `outdir` at run time.
 */
export async function bundleAgent({ entryPoints, outdir, nodeMajor }) {
  await build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${nodeMajor}`,
    chunkNames: 'chunks/[name]-[hash]',
    // Minified, the idle agent keeps 6 MB less resident (52.5 MB against 58.9 for the same
    // bundle unminified, P2). Identifiers keep their names, for readable stack traces: esbuild's
    // keepNames would rename them and set each function's name back with Object.defineProperty
    // every time a closure is made, 9 times per HTTP check.
    minifyWhitespace: true,
    minifySyntax: true,
    external: [...UNBUNDLED_PACKAGES, ...ABSENT_OPTIONAL],
    // Bundled CommonJS packages call require() for Node's built-ins.
    banner: { js: "import { createRequire as __outpostRequire } from 'node:module'; const require = __outpostRequire(import.meta.url);" },
    plugins: [zodEnglishOnly],
    legalComments: 'none',
    logLevel: 'warning',
  });
  // Node's ESM loader looks for each module's package scope from its folder upwards, converting
  // a URL to a path at every step; one here ends the search at once for the chunks. Few enough
  // conversions at start that V8 never compiles that converter with TurboFan, which would keep
  // 3.5 MB of its compiler's code resident in an idle agent (P2).
  const chunks = join(outdir, 'chunks');
  if (existsSync(chunks)) writeFileSync(join(chunks, 'package.json'), '{ "type": "module" }\n');
}
