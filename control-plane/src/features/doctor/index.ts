// `admin doctor`: checks the installation and answers one line per check. The database is
// opened without migrating, so that pending migrations can be reported rather than applied.
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Config } from '../../config.js';
import { MIGRATIONS } from '../../db/migrations/index.js';
import { fail, warn, type CheckResult, type Sql } from './check.js';
import { checkClock, measureDatabaseSkew } from './clock.js';
import { checkDatabaseSettings, checkDatabaseVersion, readDatabaseFacts } from './database-server.js';
import { checkDisk, diskSpace } from './disk.js';
import { checkMigrations, readAppliedMigrations } from './migrations.js';
import { checkResultsRetention, readResultsFacts } from './results-retention.js';
import { checkSmtp } from './smtp.js';
import { checkTlsFiles } from './tls-files.js';

export type { CheckResult } from './check.js';

const CONNECT_TIMEOUT_MS = 5_000;
/** Counting a large results table takes a while, but not forever. */
const QUERY_TIMEOUT_MS = 60_000;

interface Connection {
  sql: Sql;
  /** The embedded database's data folder; absent on a PostgreSQL server. */
  embeddedDataFolder?: string;
  close(): Promise<void>;
}

async function connect(config: Config): Promise<Connection> {
  let url = config.databaseUrl;
  let embedded: { folder: string; stop(): Promise<void> } | undefined;
  if (!url) {
    const folder = path.resolve(config.dataDir, 'pgdata');
    // Starting PGlite on an empty folder would create a database: report its absence instead.
    if (!existsSync(path.join(folder, 'PG_VERSION'))) throw new Error(`no embedded database in ${folder} yet`);
    const { startEmbeddedPostgres } = await import('../../db/embedded-postgres.js');
    const started = await startEmbeddedPostgres(config.dataDir);
    embedded = { folder, stop: started.stop };
    url = started.url;
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, query_timeout: QUERY_TIMEOUT_MS });
  try {
    await client.connect();
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
  return {
    sql: async <T,>(text: string, params: unknown[] = []) => (await client.query(text, params)).rows as T[],
    embeddedDataFolder: embedded?.folder,
    async close() {
      await client.end().catch(() => undefined);
      await embedded?.stop();
    },
  };
}

/** A check that could not run (a missing table, a permission) is a failure, not a crash. */
async function guarded(name: string, work: () => Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await work();
  } catch (err) {
    return fail(name, `could not check: ${(err as Error).message}`, "Check that the database user owns the control plane's tables, and the migrations line above.");
  }
}

/** The checks that need the database, each reported as not done when it cannot be reached. */
async function withDatabase(config: Config): Promise<{ first: CheckResult[]; clock: CheckResult; results: CheckResult }> {
  let db: Connection;
  try {
    db = await connect(config);
  } catch (err) {
    const where = config.databaseUrl ? 'DATABASE_URL' : `DATA_DIR (${config.dataDir})`;
    const skipped = (name: string) => warn(name, 'not checked: no database', 'Fix the database first.');
    return {
      first: [
        fail('database', `cannot open the database: ${(err as Error).message}`, `Check ${where}, and that the database server is up and reachable from this host; on the embedded database, start the control plane once.`),
        skipped('database settings'),
        skipped('migrations'),
      ],
      clock: skipped('clock'),
      results: skipped('check results'),
    };
  }
  try {
    const facts = await readDatabaseFacts(db.sql);
    const embedded = db.embeddedDataFolder !== undefined;
    return {
      first: [
        checkDatabaseVersion(facts, db.embeddedDataFolder),
        checkDatabaseSettings(facts, config.databasePoolSize, embedded),
        await guarded('migrations', async () => checkMigrations(await readAppliedMigrations(db.sql), MIGRATIONS.map((m) => m.name))),
      ],
      clock: await guarded('clock', async () => checkClock(await measureDatabaseSkew(db.sql))),
      results: await guarded('check results', async () => checkResultsRetention(await readResultsFacts(db.sql), config.checkRetentionDays, new Date())),
    };
  } finally {
    await db.close();
  }
}

export async function runDoctor(config: Config): Promise<CheckResult[]> {
  const db = await withDatabase(config);
  return [
    ...db.first,
    checkDisk(config.dataDir, await diskSpace(config.dataDir)),
    db.clock,
    checkTlsFiles(config.grpcTls, new Date()),
    await checkSmtp(config.notifications.smtp),
    db.results,
  ];
}

/** "fail  migrations: 1 pending: 0022-x. Fix: Start the control plane once: ..." */
export function formatResult(r: CheckResult): string {
  return `${r.status.padEnd(4)}  ${r.name}: ${r.message}${r.fix ? `. Fix: ${r.fix}` : ''}`;
}
