// The database tests run against: TEST_DATABASE_URL when set (CI points it at a fresh
// PostgreSQL database), otherwise one embedded PGlite shared by the whole test process.
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../control-plane/src/db/embedded-postgres.js';
import { requireCapability } from '../fixtures/peers/require-peer.js';

let embedded: Promise<EmbeddedPostgres> | undefined;

export interface TestDatabase {
  url: string;
  /** PGlite serves one session at a time, so clients must use a single connection. */
  poolSize: number;
  kind: 'postgresql' | 'embedded';
}

export async function testDatabase(): Promise<TestDatabase> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) return { url, poolSize: 10, kind: 'postgresql' };
  embedded ??= startEmbeddedPostgres(null);
  return { url: (await embedded).url, poolSize: 1, kind: 'embedded' };
}

/**
 * Skips a test (or, from a hook, its suite) on the embedded database, which serves one session
 * at a time; `needs` says what the test needs more sessions for. CI runs it on PostgreSQL.
 */
export async function requireServerDatabase(mocha: Mocha.Context, needs: string): Promise<void> {
  const db = await testDatabase();
  requireCapability(mocha, db.kind === 'embedded' ? `${needs}, which the embedded database (one session) cannot give; it runs on PostgreSQL (TEST_DATABASE_URL), as in CI` : null);
}

/**
 * A database of one test's own, for what must see no other test's rows (the re-sealing of
 * every stored secret): a new database on the PostgreSQL server, or a second PGlite.
 */
export async function isolatedDatabase(): Promise<{ url: string; poolSize: number; drop(): Promise<void> }> {
  const shared = process.env.TEST_DATABASE_URL;
  if (!shared) {
    const own = await startEmbeddedPostgres(null);
    return { url: own.url, poolSize: 1, drop: () => own.stop() };
  }
  const name = `outpost_isolated_${process.pid}_${Date.now()}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: shared });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(shared);
  url.pathname = `/${name}`;
  return { url: url.toString(), poolSize: 10, drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** Stops the shared embedded database (root hook, after every test file). */
export async function stopTestDatabase(): Promise<void> {
  const running = embedded;
  embedded = undefined;
  await (await running)?.stop();
}
