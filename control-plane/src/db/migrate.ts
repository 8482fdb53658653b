// Brings the database's schema up to this build. Most starts find nothing to do, and then load
// neither MikroORM's migrator (with umzug and its command-line parser) nor the migrations: once
// loaded they stay resident, some 9 MB of an otherwise idle control plane.
import type { MikroORM } from '@mikro-orm/postgresql';
import { loadMigrations, MIGRATIONS } from './migrations/index.js';

/** The names of this build's migrations that the database `orm` is connected to has not applied, in order. */
export async function pendingMigrations(orm: MikroORM): Promise<string[]> {
  const table = orm.config.get('migrations').tableName!;
  const connection = orm.em.getConnection();
  const [found] = await connection.execute<{ present: boolean }[]>('select to_regclass(?) is not null as present', [table]);
  const applied = found?.present ? await connection.execute<{ name: string }[]>(`select name from "${table}"`) : [];
  const done = new Set(applied.map((row) => row.name));
  return MIGRATIONS.map((m) => m.name).filter((name) => !done.has(name));
}

/** Applies the pending migrations (up to and including `upTo`, when given), all or nothing. */
export async function migrate(orm: MikroORM, upTo?: string): Promise<void> {
  const pending = await pendingMigrations(orm);
  if (pending.length === 0 || (upTo !== undefined && !pending.includes(upTo))) return;
  const { Migrator } = await import('@mikro-orm/migrations');
  orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList: await loadMigrations() });
  await new Migrator(orm.em).up(upTo === undefined ? undefined : { to: upTo });
}
