import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { openDatabase } from '../../control-plane/src/db/database.js';
import { MIGRATIONS } from '../../control-plane/src/db/migrations/index.js';
import { createLogger } from '../../control-plane/src/logger.js';

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

describe('migrations', () => {
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
});
