// Whether a build is current: a SHA-256 of its sources (paths and contents, not times, so a
// checkout or a copy that touches every file does not force a rebuild) kept beside the build.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Every file under dir, sorted, skipping node_modules. */
export async function filesUnder(dir) {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? (e.name === 'node_modules' ? [] : filesUnder(join(dir, e.name))) : [join(dir, e.name)])),
  );
  return nested.flat().sort();
}

/** The hash of the given files and of every file under the given folders, named relative to root. */
export async function sourceHash(root, paths) {
  const files = [];
  for (const p of paths) files.push(...((await stat(p)).isDirectory() ? await filesUnder(p) : [p]));
  const hash = createHash('sha256');
  for (const file of files) hash.update(relative(root, file)).update('\0').update(await readFile(file)).update('\0');
  return hash.digest('hex');
}

/** Why the build must be made again, or null when it is current. */
export async function staleness({ hash, stampFile, outputs = [] }) {
  const missing = outputs.find((o) => !existsSync(o));
  if (missing) return `${relative(process.cwd(), missing)} is missing`;
  if (!existsSync(stampFile)) return 'it was never built here';
  return (await readFile(stampFile, 'utf8')).trim() === hash ? null : 'its sources changed';
}

export async function writeStamp(stampFile, hash) {
  await writeFile(stampFile, `${hash}\n`);
}
