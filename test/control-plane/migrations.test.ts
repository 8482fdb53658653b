import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, PostgreSqlDriver, type EntityManager } from '@mikro-orm/postgresql';
import { openDatabase, type Database } from '../../control-plane/src/db/database.js';
import { startEmbeddedPostgres } from '../../control-plane/src/db/embedded-postgres.js';
import { pendingMigrations } from '../../control-plane/src/db/migrate.js';
import { loadMigrations, MIGRATIONS } from '../../control-plane/src/db/migrations/index.js';
import { encodeBacklog, rollupDeltas, type RolledResult } from '../../control-plane/src/features/checks/rollup-deltas.js';
import { createLogger } from '../../control-plane/src/logger.js';
import { createPrivatePostgres } from '../fixtures/private-postgres.js';
import { migrationModulesLoadedByAStart } from '../support/migration-modules.js';

const logger = createLogger('silent');

/** A brand-new empty database: on the PostgreSQL server when tests use one, else PGlite. */
async function withFreshDatabase(run: (url: string | undefined) => Promise<void>): Promise<void> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return run(undefined);
  const name = `outpost_migrations_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    await run(url.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

const ORGANIZATION_ID = '00000000-0000-4000-8000-000000000001';
const SERVICE_ID = '00000000-0000-4000-8000-000000000002';

/** An ORM on `url` with the migrator registered, for migrating part way as an older build did. */
async function ormWithMigrator(url: string): Promise<MikroORM> {
  return MikroORM.init({
    driver: PostgreSqlDriver,
    clientUrl: url,
    extensions: [Migrator],
    migrations: { migrationsList: await loadMigrations(), transactional: true, snapshot: false },
    pool: { min: 0, max: 1 },
    discovery: { warnWhenNoEntities: false },
    allowGlobalContext: true,
    debug: false,
    logger: () => undefined,
  });
}

/**
 * An existing installation: a fresh database migrated up to `last`, holding one organization
 * and one service and whatever `seed` adds. `check` then opens it as the current build would
 * (which migrates it the rest of the way).
 */
async function upgradedFrom(last: string, seed: (em: EntityManager) => Promise<unknown>, check: (db: Database) => Promise<void>): Promise<void> {
  await withFreshDatabase(async (serverUrl) => {
    const embedded = serverUrl ? undefined : await startEmbeddedPostgres(null);
    const url = serverUrl ?? embedded!.url;
    try {
      const before = await ormWithMigrator(url);
      await before.getMigrator().up({ to: last });
      const em = before.em.fork();
      await em.execute(`insert into organizations (id, name, slug) values ('${ORGANIZATION_ID}', 'o', 'o')`);
      await em.execute(`insert into services (id, organization_id, name, endpoint, check_type, check_interval_seconds, timeout_seconds)
                        values ('${SERVICE_ID}', '${ORGANIZATION_ID}', 's', 'http://127.0.0.1:9/', 'HTTP', 60, 5)`);
      await seed(em);
      await before.close(true);

      const db = await openDatabase({ url, embeddedDataDir: null, poolSize: 1, logger });
      try {
        await check(db);
      } finally {
        await db.close();
      }
    } finally {
      await embedded?.stop();
    }
  });
}

describe('migrations', () => {
  it('refuse a database migrated by a newer build, naming the migrations this one does not know', async function () {
    this.timeout(60_000);
    await withFreshDatabase(async (serverUrl) => {
      const embedded = serverUrl ? undefined : await startEmbeddedPostgres(null);
      const url = serverUrl ?? embedded!.url;
      try {
        await (await openDatabase({ url, embeddedDataDir: null, poolSize: 1, logger })).close();
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`insert into mikro_orm_migrations (name, executed_at) values ('9999-from-a-newer-build', now())`);
        await client.end();
        const refusal = await openDatabase({ url, embeddedDataDir: null, poolSize: 1, logger }).then(
          async (db) => (await db.close(), 'opened'),
          (err: Error) => err.message,
        );
        expect(refusal).to.match(/migrated by a newer Outpost .*9999-from-a-newer-build/);
      } finally {
        await embedded?.stop();
      }
    });
  });

  it('apply on a fresh database, record themselves, and are a no-op the second time', async function () {
    this.timeout(60_000);
    await withFreshDatabase(async (url) => {
      const db = await openDatabase({ url, embeddedDataDir: null, poolSize: 2, logger });
      try {
        const em = db.em();
        const tables = await em.execute<{ table_name: string }[]>(
          `select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
        );
        expect(tables.map((t) => t.table_name)).to.include.members(['check_results', 'memberships', 'organizations', 'services', 'users']);
        const applied = await em.execute<{ name: string }[]>('select name from mikro_orm_migrations order by id');
        expect(applied.map((m) => m.name)).to.deep.equal(MIGRATIONS.map((m) => m.name));
        if (url) {
          const again = await openDatabase({ url, embeddedDataDir: null, poolSize: 2, logger });
          const count = await again.em().execute<{ n: string }[]>('select count(*) as n from mikro_orm_migrations');
          await again.close();
          expect(Number(count[0]!.n)).to.equal(MIGRATIONS.length);
        }
      } finally {
        await db.close();
      }
    });
  });

  it('load neither themselves nor the migrator when the database has applied them all', async function () {
    this.timeout(180_000);
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'outpost-migrate-'));
    try {
      await withFreshDatabase(async (url) => {
        // The embedded database without a template: initdb, then every migration.
        const [target, template] = url ? [url, undefined] : [`embedded:${scratch}`, path.join(scratch, 'no-template')];
        expect(migrationModulesLoadedByAStart(target, template), 'the first start migrates').to.deep.equal(['@mikro-orm/migrations', 'umzug']);
        expect(migrationModulesLoadedByAStart(target, template), 'a restart has nothing to migrate').to.deep.equal([]);
      });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('are pending by name: all on a fresh database, the later ones on one migrated part way, none at the end', async function () {
    this.timeout(60_000);
    await withFreshDatabase(async (serverUrl) => {
      const embedded = serverUrl ? undefined : await startEmbeddedPostgres(null);
      const orm = await ormWithMigrator(serverUrl ?? embedded!.url);
      try {
        const names = MIGRATIONS.map((m) => m.name);
        expect(await pendingMigrations(orm)).to.deep.equal(names);
        await orm.getMigrator().up({ to: names.at(-3) });
        expect(await pendingMigrations(orm)).to.deep.equal(names.slice(-2));
        await orm.getMigrator().up();
        expect(await pendingMigrations(orm)).to.deep.equal([]);
      } finally {
        await orm.close(true);
        await embedded?.stop();
      }
    });
  });

  it('apply once when several replicas start together on a fresh database', async function () {
    this.timeout(60_000);
    // Replicas share a PostgreSQL server: the tests' own, else a private cluster (PGlite has one session).
    const cluster = process.env.TEST_DATABASE_URL ? undefined : await createPrivatePostgres(this);
    const startTogether = async (url: string | undefined) => {
      const replicas = await Promise.all([1, 2, 3].map(() => openDatabase({ url: url ?? cluster!.url, embeddedDataDir: null, poolSize: 2, logger })));
      try {
        const applied = await replicas[0]!.em().execute<{ name: string }[]>('select name from mikro_orm_migrations order by id');
        expect(applied.map((m) => m.name)).to.deep.equal(MIGRATIONS.map((m) => m.name));
      } finally {
        await Promise.all(replicas.map((db) => db.close()));
      }
    };
    try {
      await (cluster ? startTogether(undefined) : withFreshDatabase(startTogether));
    } finally {
      cluster?.destroy();
    }
  });

  it('moves existing raw results into day partitions and builds their rollups (0006)', async function () {
    this.timeout(60_000);
    await upgradedFrom(
      '0005-heartbeats',
      // Three days of results, one in five failing.
      (em) =>
        em.execute(`insert into check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at)
                    select gen_random_uuid(), '${SERVICE_ID}', '${ORGANIZATION_ID}',
                           case when i % 5 = 0 then 'RED' else 'GREEN' end, 10 + i, 'm', 'local', 'a', now() - i * interval '1 hour'
                      from generate_series(0, 71) as i`),
      async (db) => {
        const after = db.em();
        const [kind] = await after.execute<{ relkind: string }[]>(`select relkind from pg_class where relname = 'check_results'`);
        expect(kind!.relkind, 'partitioned').to.equal('p');
        const partitions = await after.execute<{ n: string }[]>(`select count(*) as n from pg_inherits where inhparent = 'check_results'::regclass`);
        expect(Number(partitions[0]!.n)).to.be.within(3, 4);
        const [raw] = await after.execute<{ n: string; up: string }[]>(`select count(*) as n, count(*) filter (where status <> 'RED') as up from check_results`);
        expect(raw).to.deep.equal({ n: '72', up: '57' });
        for (const table of ['check_rollups_minute', 'check_rollups_hour', 'check_rollups_day']) {
          const [rolled] = await after.execute<{ n: string; up: string }[]>(`select sum(total_checks) as n, sum(successful_checks) as up from ${table}`);
          expect(rolled, table).to.deep.equal(raw);
        }
        expect(await after.execute(`select 1 from pg_class where relname = 'check_results_unpartitioned'`)).to.deep.equal([]);
      },
    );
  });

  it('keys raw results by (service, time, id) in every partition, keeping existing rows and replays idempotent (0012)', async function () {
    this.timeout(60_000);
    await upgradedFrom(
      '0011-location-response-time',
      async (em) => {
        await em.execute(`select outpost_ensure_day_partition('check_results', (now() - i * interval '1 day')::date) from generate_series(0, 2) as i`);
        await em.execute(`insert into check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at)
                          select gen_random_uuid(), '${SERVICE_ID}', '${ORGANIZATION_ID}', 'GREEN', 10 + i, 'm', 'local', 'a', now() - i * interval '1 hour'
                            from generate_series(0, 47) as i`);
      },
      async (db) => {
        const after = db.em();
        const keys = await after.execute<{ table: string; key: string }[]>(
          `select c.conrelid::regclass::text as table, pg_get_constraintdef(c.oid) as key from pg_constraint c
            where c.contype = 'p' and c.conrelid in (select relid from pg_partition_tree('check_results'::regclass))`,
        );
        expect(keys.length, 'the table and its partitions').to.be.at.least(3);
        for (const k of keys) expect(k.key, k.table).to.equal('PRIMARY KEY (service_id, checked_at, id)');
        const indexes = await after.execute<{ n: string }[]>(`select count(*) as n from pg_indexes where tablename = 'check_results'`);
        expect(Number(indexes[0]!.n), 'one index on the parent').to.equal(1);
        const replay = await after.execute<{ id: string }[]>(
          `insert into check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at)
             select id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at from check_results
           on conflict (service_id, checked_at, id) do nothing returning id`,
        );
        expect(replay).to.deep.equal([]);
        const [raw] = await after.execute<{ n: string }[]>('select count(*) as n from check_results');
        expect(raw!.n).to.equal('48');
      },
    );
  });

  it('folds what the rollup backlog holds into the rollups when 0017 is undone', async function () {
    this.timeout(60_000);
    await withFreshDatabase(async (serverUrl) => {
      const embedded = serverUrl ? undefined : await startEmbeddedPostgres(null);
      try {
        const orm = await ormWithMigrator(serverUrl ?? embedded!.url);
        try {
          await orm.getMigrator().up();
          const em = orm.em.fork();
          await em.execute(`insert into organizations (id, name, slug) values ('${ORGANIZATION_ID}', 'o', 'o')`);
          await em.execute(`insert into services (id, organization_id, name, endpoint, check_type, check_interval_seconds, timeout_seconds)
                            values ('${SERVICE_ID}', '${ORGANIZATION_ID}', 's', 'http://127.0.0.1:9/', 'HTTP', 60, 5)`);
          const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
          const results: RolledResult[] = [
            { serviceId: SERVICE_ID, checkedAt: new Date(hour - 90_000), status: 'GREEN', responseTimeMs: 12.5 },
            { serviceId: SERVICE_ID, checkedAt: new Date(hour + 1_000), status: 'RED', responseTimeMs: 300 },
            { serviceId: SERVICE_ID, checkedAt: new Date(hour + 2_000), status: 'YELLOW', responseTimeMs: 2_000 },
          ];
          const gone = { serviceId: '00000000-0000-4000-8000-0000000000ff', checkedAt: new Date(hour), status: 'GREEN' as const, responseTimeMs: 1 };
          await em.execute('insert into rollup_backlog (results) values (?), (?)', [encodeBacklog(results.slice(0, 2)), encodeBacklog([results[2]!, gone])]);

          await orm.getMigrator().down({ to: '0017-rollup-backlog' });

          expect(await em.execute(`select to_regclass('rollup_backlog') as t`)).to.deep.equal([{ t: null }]);
          const expected = rollupDeltas(results);
          for (const [tier, table] of [['minute', 'check_rollups_minute'], ['hour', 'check_rollups_hour'], ['day', 'check_rollups_day']] as const) {
            const rows = await em.execute<Record<string, unknown>[]>(
              `select service_id, bucket, total_checks, successful_checks, response_time_sum_ms, response_time_max_ms${tier === 'minute' ? '' : ', response_histogram'}
                 from ${table} order by service_id, bucket`,
            );
            // SQL's histograms run to the last bucket; ingest's stop at the last non-zero one.
            const trimmed = (h: number[]) => h.slice(0, h.findLastIndex((n) => n > 0) + 1);
            expect(
              rows.map((r) => ({ ...r, bucket: new Date(r.bucket as string).toISOString(), ...(r.response_histogram ? { response_histogram: trimmed(r.response_histogram as number[]) } : {}) })),
              table,
            ).to.deep.equal(expected[tier]);
          }
        } finally {
          await orm.close(true);
        }
      } finally {
        await embedded?.stop();
      }
    });
  });
});
