// Takes the snapshot: every table of the installation read in one read-only, repeatable-read
// transaction, so that the archive is one consistent moment even while results keep arriving.
// On the embedded database, which runs one session, other statements wait for it to finish.
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { ARCHIVE_FORMAT, TableHash, type ArchiveHeader, type SealedKeys, type TableSummary } from './archive-format.js';
import { backupTables, HISTORY_COLUMNS, insertableColumns, quoteIdent, type SqlClient } from './backup-tables.js';

export interface BackupOptions {
  version: string;
  source: ArchiveHeader['source'];
  /** Leave out check results and minute rollups older than this many days. */
  historyDays?: number;
  /** The data keys, JWT secret and agent token, already sealed with a passphrase. */
  keys?: SealedKeys;
  now?: () => Date;
}

export interface BackupSummary {
  tables: Record<string, TableSummary>;
  keys: boolean;
}

/** Rows fetched per round trip from the cursor. */
const FETCH_ROWS = 2_000;

/** Writes the archive to `out` (gzip applied here) and ends it; resolves with what it holds. */
export async function writeBackup(sql: SqlClient, out: Writable, options: BackupOptions): Promise<BackupSummary> {
  const gzip = createGzip();
  let ended = false;
  // A reader that goes away (a download cancelled) must not leave the snapshot's transaction
  // open: on the embedded database every other statement would wait for it.
  const gone = new Promise<never>((_, reject) => {
    const fail = (err?: Error) => !ended && reject(err ?? new Error('the backup was closed before its end'));
    out.once('close', () => fail()).once('error', fail);
    gzip.once('error', fail);
  });
  gone.catch(() => undefined);
  const finished = new Promise<void>((resolve) => out.once('finish', () => ((ended = true), resolve())));
  gzip.pipe(out);
  const write = async (line: string) => {
    if (!gzip.write(`${line}\n`)) await Promise.race([new Promise<void>((resolve) => gzip.once('drain', resolve)), gone]);
  };
  const tables: Record<string, TableSummary> = {};
  await sql.query('begin isolation level repeatable read read only');
  try {
    const { rows: migrations } = await sql.query<{ name: string }>('select name from mikro_orm_migrations order by id');
    const header: ArchiveHeader = {
      outpost_backup: ARCHIVE_FORMAT,
      version: options.version,
      created_at: (options.now?.() ?? new Date()).toISOString(),
      migrations: migrations.map((m) => m.name),
      history_days: options.historyDays ?? null,
      source: options.source,
    };
    await write(JSON.stringify(header));
    for (const table of await backupTables(sql)) {
      await write(JSON.stringify({ '@table': table, columns: await insertableColumns(sql, table) }));
      const hash = new TableHash();
      const since = HISTORY_COLUMNS[table] && options.historyDays ? ` where t.${quoteIdent(HISTORY_COLUMNS[table])} >= now() - make_interval(days => ${options.historyDays})` : '';
      await sql.query(`declare backup_rows no scroll cursor for select to_jsonb(t)::text as line from ${quoteIdent(table)} t${since}`);
      for (;;) {
        const { rows } = await sql.query<{ line: string }>(`fetch ${FETCH_ROWS} from backup_rows`);
        for (const { line } of rows) {
          hash.add(line);
          await write(line);
        }
        if (rows.length < FETCH_ROWS) break;
      }
      await sql.query('close backup_rows');
      tables[table] = hash.summary();
      await write(JSON.stringify({ '@end': table, ...tables[table] }));
    }
  } finally {
    await sql.query('rollback').catch(() => undefined);
  }
  if (options.keys) await write(JSON.stringify({ '@keys': options.keys }));
  await write(JSON.stringify({ '@manifest': { tables, keys: options.keys !== undefined } }));
  gzip.end();
  await Promise.race([finished, gone]);
  return { tables, keys: options.keys !== undefined };
}
