// Migrations this build knows that the database has not applied, and the reverse (a database
// migrated by a newer build).
import { compareMigrations } from '../../db/migrations/index.js';
import { fail, ok, type CheckResult, type Sql } from './check.js';

/** MikroORM's default table, which openDatabase keeps. */
const MIGRATIONS_TABLE = 'mikro_orm_migrations';

export async function readAppliedMigrations(sql: Sql): Promise<string[]> {
  const [found] = await sql<{ present: boolean }>('select to_regclass($1) is not null as present', [MIGRATIONS_TABLE]);
  if (!found?.present) return [];
  return (await sql<{ name: string }>(`select name from ${MIGRATIONS_TABLE} order by id`)).map((r) => r.name);
}

export function checkMigrations(applied: readonly string[], known: readonly string[]): CheckResult {
  const { pending, unknown } = compareMigrations(applied, known);
  if (unknown.length > 0) {
    return fail('migrations', `the database has ${unknown.length} migration(s) this build does not know (${unknown.join(', ')})`, 'Run the control plane release that migrated this database, or a newer one.');
  }
  if (pending.length > 0) {
    return fail(
      'migrations',
      `${pending.length} pending: ${pending.join(', ')}`,
      'Start the control plane once: it applies pending migrations at start (replicas take turns).',
    );
  }
  return ok('migrations', `all ${known.length} applied`);
}
