// A freshly initialised PGlite data folder, made at build time beside the build. A first start
// copies it instead of running PGlite's initdb, which runs in a second PostgreSQL instance and
// a third WebAssembly module and leaves about 600 MB resident, never returned to the system.
// (PGlite's own `loadDataDir` tarball also avoids initdb, but holds the tarball, its 40 MB
// unpacked copy and their pieces in the JS heap until a full GC: about 100 MB more than a
// copied folder.) The folder is tied to the PGlite version that made it: another version may
// lay out its catalogue differently, so a mismatch is not used.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { createLogger } from '../logger.js';
import { MIGRATIONS } from './migrations/index.js';

const DATA_FOLDER = 'pgdata';
const MANIFEST = 'manifest.json';

interface Manifest {
  pglite: string;
  /** The migrations applied to the folder, in order (absent in templates made before they were). */
  migrations?: string[];
}

export type TemplateLookup = { found: true; dataFolder: string; migrations: string[] } | { found: false; reason: string };

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

/**
 * The template's data folder in `dir` when the installed PGlite made it and its migrations are
 * this build's (the first ones of them, when the build has since gained more: a first start
 * applies those), or why it cannot be used.
 */
export async function readTemplate(dir: string): Promise<TemplateLookup> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as Manifest;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { found: false, reason: `no template in ${dir}` };
    throw err;
  }
  const installed = await installedPgliteVersion();
  if (manifest.pglite !== installed) {
    return { found: false, reason: `the template was made by PGlite ${manifest.pglite}, this is PGlite ${installed}` };
  }
  const migrations = manifest.migrations ?? [];
  const unknown = migrations.find((name, i) => MIGRATIONS[i]?.name !== name);
  if (unknown !== undefined) return { found: false, reason: `the template holds the migration ${unknown}, which this build does not have in that place` };
  return { found: true, dataFolder: join(dir, DATA_FOLDER), migrations };
}

/** Whether the template `lookup` found holds exactly this build's migrations. */
export function holdsEveryMigration(lookup: TemplateLookup): boolean {
  return lookup.found && lookup.migrations.length === MIGRATIONS.length;
}

/** Runs PGlite's initdb once, then this build's migrations, and keeps the data folder they made in `dir` as the template. */
export async function writeTemplate(dir: string): Promise<void> {
  // Made aside and renamed into place whole: a manifest is only ever beside a complete folder.
  const aside = `${dir}.${process.pid}.tmp`;
  await rm(aside, { recursive: true, force: true });
  await mkdir(aside, { recursive: true });
  // A clean close checkpoints and removes postmaster.pid: a start from the copy replays nothing.
  const db = await PGlite.create(join(aside, DATA_FOLDER));
  await db.close();
  // Loaded here only: the database module starts the embedded database, which reads templates.
  const { openDatabase } = await import('./database.js');
  const migrated = await openDatabase({ url: undefined, embeddedDataDir: aside, poolSize: 1, logger: createLogger('warn') });
  await migrated.close();
  const manifest: Manifest = { pglite: await installedPgliteVersion(), migrations: MIGRATIONS.map((m) => m.name) };
  await writeFile(join(aside, MANIFEST), `${JSON.stringify(manifest)}\n`);
  await rm(dir, { recursive: true, force: true });
  await rename(aside, dir);
}
