// The backup archive: gzip of JSON lines, readable with `zcat | head`. A header line first
// (format, version, the schema's migrations), then each table as a `@table` line, one line per
// row (the row as PostgreSQL's to_jsonb writes it, so both the embedded database and a
// PostgreSQL server load it back with jsonb_populate_recordset), and an `@end` line with its
// count and checksum; optionally the sealed keys; last the manifest repeating every count and
// checksum, so a cut-off archive is told apart from a complete one.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { z } from 'zod';

export const ARCHIVE_FORMAT = 1;

export const ArchiveHeader = z.object({
  outpost_backup: z.literal(ARCHIVE_FORMAT),
  /** The Outpost version that wrote it. */
  version: z.string(),
  created_at: z.string(),
  /** The migrations applied to the database it was taken from, in order. */
  migrations: z.array(z.string()).min(1),
  /** Results and minute rollups older than this many days were left out; null: all of them. */
  history_days: z.number().int().positive().nullable(),
  source: z.enum(['embedded', 'postgresql']),
});
export type ArchiveHeader = z.infer<typeof ArchiveHeader>;

export const TableStart = z.object({ '@table': z.string(), columns: z.array(z.string()) });
export const TableEnd = z.object({ '@end': z.string(), rows: z.number().int().nonnegative(), sha256: z.string() });

export const SealedKeys = z.object({
  kdf: z.literal('scrypt'),
  N: z.number().int(),
  r: z.number().int(),
  p: z.number().int(),
  salt: z.string(),
  iv: z.string(),
  tag: z.string(),
  ciphertext: z.string(),
});
export type SealedKeys = z.infer<typeof SealedKeys>;

export const Manifest = z.object({
  '@manifest': z.object({
    tables: z.record(z.string(), z.object({ rows: z.number().int().nonnegative(), sha256: z.string() })),
    keys: z.boolean(),
  }),
});
export type TableSummary = { rows: number; sha256: string };

export class ArchiveError extends Error {}

/** Hashes a table's row lines as written, newline included. */
export class TableHash {
  private readonly hash: Hash = createHash('sha256');
  rows = 0;
  add(line: string): void {
    this.hash.update(line).update('\n');
    this.rows++;
  }
  /** Several lines at once, already joined with a newline after each. */
  addJoined(text: string, lines: number): void {
    this.hash.update(text);
    this.rows += lines;
  }
  summary(): TableSummary {
    return { rows: this.rows, sha256: this.hash.digest('hex') };
  }
}

export type ArchiveEvent =
  | { kind: 'header'; header: ArchiveHeader }
  | { kind: 'table'; table: string; columns: string[] }
  | { kind: 'row'; table: string; line: string }
  | { kind: 'end'; table: string; summary: TableSummary }
  | { kind: 'keys'; keys: SealedKeys }
  | { kind: 'manifest'; tables: Record<string, TableSummary>; keys: boolean };

const parseLine = (line: string, at: number): Record<string, unknown> => {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new ArchiveError(`line ${at} is not JSON: the archive is damaged`);
  }
};

/**
 * Reads an archive as its events, checking each table's rows against its `@end` and every
 * `@end` against the manifest; throws ArchiveError on the first thing that does not match.
 */
export async function* readArchive(file: string): AsyncGenerator<ArchiveEvent> {
  const gunzip = createGunzip();
  const lines = createInterface({ input: createReadStream(file).on('error', (err) => gunzip.destroy(err)).pipe(gunzip), crlfDelay: Infinity });
  let at = 0;
  let table: { name: string; hash: TableHash } | undefined;
  const ended = new Map<string, TableSummary>();
  let manifestSeen = false;
  let keysSeen = false;
  try {
    for await (const line of lines) {
      at++;
      if (manifestSeen) throw new ArchiveError(`line ${at} follows the manifest: the archive is damaged`);
      if (at === 1) {
        const header = ArchiveHeader.safeParse(parseLine(line, at));
        if (!header.success) throw new ArchiveError('this is not an Outpost backup (or one of a newer format)');
        yield { kind: 'header', header: header.data };
        continue;
      }
      if (table && !line.startsWith('{"@end"')) {
        table.hash.add(line);
        yield { kind: 'row', table: table.name, line };
        continue;
      }
      const record = parseLine(line, at);
      if ('@table' in record) {
        const start = TableStart.parse(record);
        if (ended.has(start['@table'])) throw new ArchiveError(`the table ${start['@table']} appears twice`);
        table = { name: start['@table'], hash: new TableHash() };
        yield { kind: 'table', table: table.name, columns: start.columns };
      } else if ('@end' in record && table) {
        const end = TableEnd.parse(record);
        const summary = table.hash.summary();
        if (end['@end'] !== table.name || end.rows !== summary.rows || end.sha256 !== summary.sha256) {
          throw new ArchiveError(`the rows of ${table.name} do not match their checksum: the archive is damaged`);
        }
        ended.set(table.name, summary);
        yield { kind: 'end', table: table.name, summary };
        table = undefined;
      } else if ('@keys' in record) {
        keysSeen = true;
        yield { kind: 'keys', keys: SealedKeys.parse(record['@keys']) };
      } else if ('@manifest' in record) {
        const manifest = Manifest.parse(record)['@manifest'];
        const listed = Object.keys(manifest.tables);
        if (listed.length !== ended.size || listed.some((name) => manifest.tables[name]!.sha256 !== ended.get(name)?.sha256 || manifest.tables[name]!.rows !== ended.get(name)?.rows)) {
          throw new ArchiveError('the manifest does not match the tables: the archive is damaged');
        }
        if (manifest.keys !== keysSeen) throw new ArchiveError('the manifest and the keys do not match: the archive is damaged');
        manifestSeen = true;
        yield { kind: 'manifest', tables: manifest.tables, keys: manifest.keys };
      } else {
        throw new ArchiveError(`line ${at} is not part of an Outpost backup`);
      }
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    if (err instanceof z.ZodError) throw new ArchiveError(`line ${at} is malformed: the archive is damaged`);
    throw new ArchiveError(`the archive cannot be read (${(err as Error).message}): is it an Outpost backup, complete?`);
  }
  if (at === 0) throw new ArchiveError('the archive is empty');
  if (!manifestSeen) throw new ArchiveError('the archive ends before its manifest: it is incomplete');
}
