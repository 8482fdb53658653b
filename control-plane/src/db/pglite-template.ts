// A freshly initialised PGlite data folder, kept as a tarball beside the build. Loading it on a
// first start replaces PGlite's own initdb, which runs in a second PostgreSQL instance and a
// third WebAssembly module and keeps a copy of their heaps (about 600 MB resident, and
// never returned to the system). The tarball is tied to the PGlite version that made it:
// another version may lay out its catalogue differently, so a mismatch is not loaded.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';

const TARBALL = 'pgdata.tar.gz';
const MANIFEST = 'manifest.json';

interface Manifest {
  pglite: string;
}

export type TemplateLookup = { found: true; tarball: Blob } | { found: false; reason: string };

/** dist/pglite-template of this package, where `npm run build` writes the template. */
export function defaultTemplateDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'pglite-template');
}

/** The version of the PGlite package this process loads. */
export async function installedPgliteVersion(): Promise<string> {
  // The package exports no package.json; its entry point sits in dist/ below it.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const manifest = JSON.parse(await readFile(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/** The template in `dir` when it was made by the installed PGlite, or why it cannot be used. */
export async function readTemplate(dir: string): Promise<TemplateLookup> {
  let manifest: Manifest;
  let bytes: Buffer;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as Manifest;
    bytes = await readFile(join(dir, TARBALL));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { found: false, reason: `no template in ${dir}` };
    throw err;
  }
  const installed = await installedPgliteVersion();
  if (manifest.pglite !== installed) {
    return { found: false, reason: `the template was made by PGlite ${manifest.pglite}, this is PGlite ${installed}` };
  }
  return { found: true, tarball: new Blob([bytes], { type: 'application/gzip' }) };
}

/** Runs PGlite's initdb once and writes its data folder to `dir` as the template. */
export async function writeTemplate(dir: string): Promise<void> {
  const db = await PGlite.create();
  let tarball: Blob;
  try {
    // Written to the data files, so a start from the template has no WAL to replay.
    await db.exec('checkpoint');
    tarball = await db.dumpDataDir('gzip');
  } finally {
    await db.close();
  }
  await mkdir(dir, { recursive: true });
  // The tarball before the manifest, each renamed into place whole: a manifest is only ever
  // beside the complete tarball it describes.
  await replaceFile(join(dir, TARBALL), Buffer.from(await tarball.arrayBuffer()));
  await replaceFile(join(dir, MANIFEST), `${JSON.stringify({ pglite: await installedPgliteVersion() } satisfies Manifest)}\n`);
}

async function replaceFile(file: string, content: Buffer | string): Promise<void> {
  await writeFile(`${file}.tmp`, content);
  await rename(`${file}.tmp`, file);
}
