// Loads an archive into an empty database: first a full read that checks every checksum and
// the schema, then the load, all in one transaction, into the schema the archive was taken at;
// the migrations that came after it run once the rows are in, as they would have on the
// original database.
import { compareMigrations } from '../../db/migrations/index.js';
import { ArchiveError, readArchive, type ArchiveHeader, type SealedKeys, type TableSummary } from './archive-format.js';
import { HISTORY_COLUMNS, insertableColumns, quoteIdent, RUNTIME_TABLES, type SqlClient } from './backup-tables.js';

export interface ArchiveFacts {
  header: ArchiveHeader;
  tables: Record<string, TableSummary>;
  keys: SealedKeys | undefined;
}

/** Reads the whole archive once, checking it; nothing is written. */
export async function inspectArchive(file: string): Promise<ArchiveFacts> {
  let header: ArchiveHeader | undefined;
  let keys: SealedKeys | undefined;
  for await (const event of readArchive(file)) {
    if (event.kind === 'header') header = event.header;
    else if (event.kind === 'keys') keys = event.keys;
    else if (event.kind === 'manifest') return { header: header!, tables: event.tables, keys };
  }
  throw new ArchiveError('the archive ends before its manifest: it is incomplete');
}

/** Refuses an archive whose schema this build does not know (a newer version made it). */
export function checkSchema(header: ArchiveHeader, known: readonly string[]): void {
  const { unknown } = compareMigrations(header.migrations, known);
  if (unknown.length > 0) {
    throw new ArchiveError(`the backup was made by a newer version of Outpost (${header.version}; migrations this version does not have: ${unknown.join(', ')}): restore it with that version or a later one`);
  }
  const expected = known.slice(0, header.migrations.length);
  if (expected.some((name, i) => name !== header.migrations[i])) throw new ArchiveError('the backup\'s migrations are not in this version\'s order: it was made by a different build of Outpost');
}

/** Rows a control plane writes on its first start, before anyone signs up: they give way to the archive's. */
const SELF_FILLED = ['agent_sightings'];

/** Throws while a control plane holds the database (a replica whose lease has not run out). */
export async function checkNotRunning(sql: SqlClient): Promise<void> {
  const { rows: found } = await sql.query<{ present: boolean }>(`select to_regclass('control_plane_replicas') is not null as present`);
  if (!found[0]?.present) return;
  const { rows } = await sql.query<{ running: boolean }>('select exists (select 1 from control_plane_replicas where expires_at > now()) as running');
  if (rows[0]?.running) throw new ArchiveError('a control plane is running on the target database: stop every control plane first');
}

/** Throws unless every table the archive fills is empty in the target. */
export async function checkEmpty(sql: SqlClient, tables: string[]): Promise<void> {
  const filled: string[] = [];
  for (const table of tables.filter((t) => !SELF_FILLED.includes(t))) {
    const { rows } = await sql.query<{ any: boolean }>(`select exists (select 1 from ${quoteIdent(table)}) as any`);
    if (rows[0]?.any) filled.push(table);
  }
  if (filled.length > 0) throw new ArchiveError(`the target database is not empty (${filled.slice(0, 5).join(', ')}${filled.length > 5 ? ', ...' : ''} hold rows): restore into a new, empty database`);
}

/** Rows sent per INSERT, as one JSON array parameter. */
const LOAD_ROWS = 500;

/** Loads the rows of the archive (already checked by inspectArchive) in one transaction; answers the counts loaded. */
export async function loadArchive(sql: SqlClient, file: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  await sql.query('begin');
  try {
    await clearSelfFilled(sql);
    let table: { name: string; columns: string[]; partitionKey: string | undefined } | undefined;
    let batch: string[] = [];
    const flush = async () => {
      if (!table || batch.length === 0) return;
      await insertRows(sql, table, batch);
      counts[table.name] = (counts[table.name] ?? 0) + batch.length;
      batch = [];
    };
    for await (const event of readArchive(file)) {
      if (event.kind === 'table') {
        const target = await insertableColumns(sql, event.table);
        if (target.length === 0) throw new ArchiveError(`the table ${event.table} does not exist in the target database`);
        const columns = event.columns.filter((c) => target.includes(c));
        table = { name: event.table, columns, partitionKey: await partitionKey(sql, event.table) };
        counts[event.table] = 0;
      } else if (event.kind === 'row') {
        batch.push(event.line);
        if (batch.length >= LOAD_ROWS) await flush();
      } else if (event.kind === 'end') {
        await flush();
        table = undefined;
      }
    }
    await resetSequences(sql);
    await sql.query('commit');
  } catch (err) {
    await sql.query('rollback').catch(() => undefined);
    throw err;
  }
  return counts;
}

/** Empties what a start of the target wrote: its replica's lease, its agents' sessions and sightings. */
async function clearSelfFilled(sql: SqlClient): Promise<void> {
  const names = [...RUNTIME_TABLES, ...SELF_FILLED].filter((t) => t !== 'mikro_orm_migrations');
  const { rows } = await sql.query<{ name: string }>(`select relname as name from pg_class where relnamespace = current_schema()::regnamespace and relname = any($1::text[])`, [names]);
  if (rows.length > 0) await sql.query(`truncate ${rows.map((r) => quoteIdent(r.name)).join(', ')}`);
}

async function insertRows(sql: SqlClient, table: { name: string; columns: string[]; partitionKey: string | undefined }, lines: string[]): Promise<void> {
  const rows = `[${lines.join(',')}]`;
  // A day-partitioned table (results, minute rollups) gets the partitions of the days it receives.
  if (table.partitionKey) {
    await sql.query(
      `select outpost_ensure_day_partition($1, day) from (select distinct (date_bin('1 day', (r->>$2)::timestamptz, timestamptz 'epoch') at time zone 'UTC')::date as day from jsonb_array_elements($3::jsonb) r) days`,
      [table.name, table.partitionKey, rows],
    );
  }
  const columns = table.columns.map(quoteIdent).join(', ');
  await sql.query(`insert into ${quoteIdent(table.name)} (${columns}) overriding system value select ${columns} from jsonb_populate_recordset(null::${quoteIdent(table.name)}, $1::jsonb)`, [rows]);
}

/** The column a day-partitioned table is partitioned by; undefined for an ordinary table. */
async function partitionKey(sql: SqlClient, table: string): Promise<string | undefined> {
  if (!(table in HISTORY_COLUMNS)) {
    const { rows } = await sql.query<{ partitioned: boolean }>(`select relkind = 'p' as partitioned from pg_class where oid = $1::regclass`, [quoteIdent(table)]);
    if (rows[0]?.partitioned) throw new ArchiveError(`the table ${table} is partitioned in a way restore does not know`);
    return undefined;
  }
  return HISTORY_COLUMNS[table];
}

/** Serial and identity columns continue after the restored rows. */
async function resetSequences(sql: SqlClient): Promise<void> {
  const { rows } = await sql.query<{ table_name: string; column_name: string }>(
    `select table_name, column_name from information_schema.columns
      where table_schema = current_schema() and (is_identity = 'YES' or column_default like 'nextval(%')`,
  );
  for (const { table_name: table, column_name: column } of rows) {
    if (RUNTIME_TABLES.has(table)) continue;
    await sql.query(
      `select setval(pg_get_serial_sequence($1, $2), coalesce((select max(${quoteIdent(column)}) from ${quoteIdent(table)}), 0) + 1, false)`,
      [quoteIdent(table), column],
    );
  }
}
