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
  /**
   * Read the results (the one table that grows without bound) after the snapshot, a chunk per
   * statement: the embedded database runs one session, and a long snapshot there would hold up
   * every other statement of the control plane until it ends.
   */
  resultsInChunks?: boolean;
  /** The data keys, JWT secret and agent token, already sealed with a passphrase. */
  keys?: SealedKeys;
  now?: () => Date;
}

export interface BackupSummary {
  tables: Record<string, TableSummary>;
  keys: boolean;
}

/** Rows fetched per round trip from the cursor. */
const FETCH_ROWS = 5_000;

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
  /** Writes `text`, which ends with its newline. */
  const write = async (text: string) => {
    if (!gzip.write(text)) await Promise.race([new Promise<void>((resolve) => gzip.once('drain', resolve)), gone]);
  };
  const tables: Record<string, TableSummary> = {};
  /** Writes one table's section from `next`, which answers the following rows' lines (fewer than FETCH_ROWS at the end). */
  const dumpTable = async (table: string, next: () => Promise<string[]>) => {
    await write(`${JSON.stringify({ '@table': table, columns: await insertableColumns(sql, table) })}\n`);
    const hash = new TableHash();
    for (;;) {
      const lines = await next();
      if (lines.length > 0) {
        // One hash update and one write per fetch: per row, they cost more than reading the rows.
        const text = `${lines.join('\n')}\n`;
        hash.addJoined(text, lines.length);
        await write(text);
      }
      if (lines.length < FETCH_ROWS) break;
    }
    tables[table] = hash.summary();
    await write(`${JSON.stringify({ '@end': table, ...tables[table] })}\n`);
  };
  const since = (table: string) => (options.historyDays ? ` and t.${quoteIdent(HISTORY_COLUMNS[table]!)} >= now() - make_interval(days => ${options.historyDays})` : '');
  let snapshotAt: string | undefined;
  let serviceIds: string[] = [];
  await sql.query('begin isolation level repeatable read read only');
  try {
    const { rows: migrations } = await sql.query<{ name: string }>('select name from mikro_orm_migrations order by id');
    const { rows: clock } = await sql.query<{ now: string }>('select now()::text as now');
    snapshotAt = clock[0]!.now;
    if (options.resultsInChunks) serviceIds = (await sql.query<{ id: string }>('select id::text as id from services order by id')).rows.map((r) => r.id);
    const header: ArchiveHeader = {
      outpost_backup: ARCHIVE_FORMAT,
      version: options.version,
      created_at: (options.now?.() ?? new Date()).toISOString(),
      migrations: migrations.map((m) => m.name),
      history_days: options.historyDays ?? null,
      source: options.source,
    };
    await write(`${JSON.stringify(header)}\n`);
    for (const table of await backupTables(sql)) {
      if (table === 'check_results' && options.resultsInChunks) continue;
      const where = HISTORY_COLUMNS[table] ? ` where true${since(table)}` : '';
      await sql.query(`declare backup_rows no scroll cursor for select to_jsonb(t)::text as line from ${quoteIdent(table)} t${where}`);
      await dumpTable(table, async () => (await sql.query<{ line: string }>(`fetch ${FETCH_ROWS} from backup_rows`)).rows.map((r) => r.line));
      await sql.query('close backup_rows');
    }
  } finally {
    await sql.query('rollback').catch(() => undefined);
  }
  if (options.resultsInChunks) {
    // Results are only ever added (or dropped with their service or partition), each under its
    // key: read after the snapshot, service by service in key order a chunk at a time, they are
    // the results of the snapshot's services received up to its moment (by the database's clock:
    // an agent's may be ahead), while the control plane's
    // statements run between two chunks. The embedded database never analyses a table by itself;
    // without statistics its planner sorts the whole remainder of the table for every chunk.
    await sql.query('analyze check_results');
    let serviceAt = 0;
    let after: [string, string] | undefined;
    await dumpTable('check_results', async () => {
      const lines: string[] = [];
      while (lines.length < FETCH_ROWS && serviceAt < serviceIds.length) {
        const { rows } = await sql.query<{ line: string; key_at: string; key_id: string }>(
          `select to_jsonb(t)::text as line, t.checked_at::text as key_at, t.id::text as key_id from check_results t
            where t.service_id = $1::uuid and t.received_at <= $2::timestamptz${since('check_results')}${after ? ' and (t.checked_at, t.id) > ($3::timestamptz, $4::uuid)' : ''}
            order by t.checked_at, t.id limit ${FETCH_ROWS - lines.length}`,
          [serviceIds[serviceAt], snapshotAt, ...(after ?? [])],
        );
        for (const r of rows) lines.push(r.line);
        const last = rows.at(-1);
        if (last && lines.length === FETCH_ROWS) after = [last.key_at, last.key_id];
        else {
          serviceAt++;
          after = undefined;
        }
      }
      return lines;
    });
  }
  if (options.keys) await write(`${JSON.stringify({ '@keys': options.keys })}\n`);
  await write(`${JSON.stringify({ '@manifest': { tables, keys: options.keys !== undefined } })}\n`);
  gzip.end();
  await Promise.race([finished, gone]);
  return { tables, keys: options.keys !== undefined };
}
