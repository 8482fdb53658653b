// Brings the database's schema up to this build. Most starts find nothing to do, and then load
// neither MikroORM's migrator (with umzug and its command-line parser) nor the migrations: once
// loaded they stay resident, some 9 MB of an otherwise idle control plane.
import type { MikroORM } from '@mikro-orm/postgresql';
import { compareMigrations, loadMigrations } from './migrations/index.js';

/** A database migrated by a newer build: this one would start, then fail on what it does not know. */
export class NewerDatabaseError extends Error {}

async function appliedMigrations(orm: MikroORM): Promise<string[]> {
  const table = orm.config.get('migrations').tableName!;
  const connection = orm.em.getConnection();
  const [found] = await connection.execute<{ present: boolean }[]>('select to_regclass(?) is not null as present', [table]);
  return found?.present ? (await connection.execute<{ name: string }[]>(`select name from "${table}"`)).map((row) => row.name) : [];
}

/** The names of this build's migrations that the database `orm` is connected to has not applied, in order. */
export async function pendingMigrations(orm: MikroORM): Promise<string[]> {
  return compareMigrations(await appliedMigrations(orm)).pending;
}

/**
 * Applies the pending migrations (up to and including `upTo`, when given), all or nothing.
 * Refuses a database holding migrations this build does not know: 0.1.0 started on one and
 * then failed to store every result batch that opened an alert (0020 changed the index its
 * statement names).
 */
export async function migrate(orm: MikroORM, upTo?: string): Promise<void> {
  const { pending, unknown } = compareMigrations(await appliedMigrations(orm));
  if (unknown.length > 0) {
    throw new NewerDatabaseError(`the database was migrated by a newer Outpost (migrations this build does not know: ${unknown.join(', ')}): run that version or a later one, or restore the backup taken before the upgrade`);
  }
  if (pending.length === 0 || (upTo !== undefined && !pending.includes(upTo))) return;
  const { Migrator } = await import('@mikro-orm/migrations');
  orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList: await loadMigrations() });
  await new Migrator(orm.em).up(upTo === undefined ? undefined : { to: upTo });
}
