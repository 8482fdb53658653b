// Which tables a backup holds, in what order they load, and what `--history-days` trims.
// Read from the catalogue each time, so a table added by a later migration is backed up
// without anyone remembering to list it here.

/** A SQL client: a pg.Client, or anything that answers the same way. */
export interface SqlClient {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

/**
 * Tables of the running system, not of the installation: replicas' heartbeats, their event
 * log and follows, live agent sessions, rate-limit counters. A restored system makes its own.
 */
export const RUNTIME_TABLES = new Set(['control_plane_replicas', 'cluster_events', 'replica_follows', 'agent_sessions', 'rate_limits', 'mikro_orm_migrations']);

/** The time column that `--history-days` trims, for the tables that hold check history. */
export const HISTORY_COLUMNS: Record<string, string> = { check_results: 'checked_at', check_rollups_minute: 'bucket' };

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The installation's tables (partitioned ones as their parent), parents before the tables that reference them. */
export async function backupTables(sql: SqlClient): Promise<string[]> {
  const { rows: tables } = await sql.query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition order by c.relname`,
  );
  const { rows: references } = await sql.query<{ child: string; parent: string }>(
    `select c.relname as child, p.relname as parent from pg_constraint k
       join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
      where k.contype = 'f' and k.connamespace = current_schema()::regnamespace and k.conrelid <> k.confrelid`,
  );
  const names = tables.map((t) => t.name).filter((name) => !RUNTIME_TABLES.has(name));
  return inDependencyOrder(names, references);
}

/** Orders tables so that every table comes after those it references (alphabetical otherwise, for stable archives). */
export function inDependencyOrder(names: string[], references: { child: string; parent: string }[]): string[] {
  const included = new Set(names);
  const parents = new Map(names.map((name) => [name, new Set<string>()]));
  for (const { child, parent } of references) if (included.has(child) && included.has(parent)) parents.get(child)!.add(parent);
  const ordered: string[] = [];
  const placed = new Set<string>();
  while (ordered.length < names.length) {
    const ready = names.filter((name) => !placed.has(name) && [...parents.get(name)!].every((p) => placed.has(p)));
    if (ready.length === 0) throw new Error(`the tables ${names.filter((n) => !placed.has(n)).join(', ')} reference each other in a cycle`);
    for (const name of ready) {
      ordered.push(name);
      placed.add(name);
    }
  }
  return ordered;
}

/** The columns a row can be inserted with (generated columns are computed, not written). */
export async function insertableColumns(sql: SqlClient, table: string): Promise<string[]> {
  const { rows } = await sql.query<{ name: string }>(
    `select attname as name from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
    [quoteIdent(table)],
  );
  return rows.map((r) => r.name);
}
