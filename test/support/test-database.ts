// The database tests run against: TEST_DATABASE_URL when set (CI points it at a fresh
// PostgreSQL database), otherwise one embedded PGlite shared by the whole test process.
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../control-plane/src/db/embedded-postgres.js';

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

/** Stops the shared embedded database (root hook, after every test file). */
export async function stopTestDatabase(): Promise<void> {
  const running = embedded;
  embedded = undefined;
  await (await running)?.stop();
}
