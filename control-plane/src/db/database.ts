// Opens PostgreSQL through MikroORM (a server from DATABASE_URL, or the embedded PGlite),
// runs the pending migrations, and hands out request-scoped entity managers.
import type { Knex } from '@mikro-orm/knex';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { BoundPostgreSqlDriver } from './bound-postgresql-driver.js';
import type { EmbeddedPostgres } from './embedded-postgres.js';
import { ENTITIES } from './entities.js';
import { migrate } from './migrate.js';
import type { Tx } from './tx.js';

const CONNECT_TIMEOUT_MS = 5_000;
const ACQUIRE_TIMEOUT_MS = 10_000;
/**
 * An idle pooled connection is kept this long: background jobs come a minute apart at most,
 * and a new connection costs more than a kept one (PostgreSQL forks a backend and fills its
 * caches again).
 */
const POOL_IDLE_MS = 5 * 60_000;
/** How often the pool looks for idle connections to close: tarn's default, every second, wakes an idle process for nothing. */
const POOL_REAP_MS = 60_000;
/** The advisory lock replicas take to migrate one at a time (any fixed number; "outpost"). */
const MIGRATION_LOCK = 0x6f7574706f7374;

export interface DatabaseOptions {
  /** A postgres:// URL; when absent the embedded database is started. */
  url: string | undefined;
  /** Where the embedded database persists; null keeps it in memory (tests). */
  embeddedDataDir: string | null;
  /** The embedded database's initialised template; absent: the build's; null: none (initdb). */
  embeddedTemplateDir?: string | null;
  poolSize: number;
  logger: Logger;
  /** Migrate only up to this migration (restoring a backup made at it); absent: every one. */
  migrateUpTo?: string;
}

export interface Database {
  readonly embedded: boolean;
  /** Where the SQL clients of tools (backups) connect: the server, or the embedded database's socket. */
  readonly url: string;
  /** Applies the migrations still pending (after opening with `migrateUpTo`). */
  migrate(): Promise<void>;
  /** A fresh entity manager with its own identity map, for one request or one job. */
  em(): EntityManager;
  /** Runs `work` in one transaction; it must not touch any other connection meanwhile. */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /** The SQL client under the ORM, for libraries that bring their own statements (rate limits). */
  knex(): Knex;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  /** Connections of the pool in use and idle, and acquisitions waiting for one. */
  poolUse(): PoolUse;
  close(): Promise<void>;
}

export interface PoolUse {
  inUse: number;
  idle: number;
  waiting: number;
}

/** The few counters of knex's pool (tarn) read here; its own types are not exported. */
interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  let url = options.url;
  if (!url) {
    // PGlite (half a megabyte of JavaScript besides its WebAssembly) only when it runs.
    const { startEmbeddedPostgres } = await import('./embedded-postgres.js');
    embedded = await startEmbeddedPostgres(options.embeddedDataDir, { templateDir: options.embeddedTemplateDir });
    url = embedded.url;
    const dataDir = options.embeddedDataDir ?? 'memory';
    if (embedded.templateSkipped) {
      options.logger.warn({ dataDir, reason: embedded.templateSkipped }, 'initialised the embedded database with initdb, which holds hundreds of MB more until a restart: run `npm run build` to make its template');
    }
    options.logger.info({ dataDir, initialisedFrom: embedded.initialisedFrom }, 'started the embedded database');
  }
  let orm: MikroORM;
  let opened: MikroORM | undefined;
  try {
    orm = opened = await MikroORM.init({
      driver: BoundPostgreSqlDriver,
      clientUrl: url,
      driverOptions: {
        // A failed statement's error names the statement, never the values bound to it.
        compileSqlOnError: false,
        // A database that is down or unreachable fails requests within seconds (503), instead
        // of holding them for the pool's default minute.
        acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
        connection: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, ...(embedded ? { stream: embedded.stream } : {}) },
        // The SQL client's own warnings (a dropped connection) go to our logs, not the console.
        log: {
          warn: (message: string) => options.logger.warn({ component: 'sql' }, message),
          error: (message: string) => options.logger.error({ component: 'sql' }, message),
          deprecate: (message: string) => options.logger.debug({ component: 'sql' }, message),
          debug: (message: string) => options.logger.debug({ component: 'sql' }, message),
        },
      },
      entities: ENTITIES,
      migrations: { transactional: true, allOrNothing: true, snapshot: false },
      // PGlite serves one session at a time: one pooled connection avoids interleaving.
      pool: { min: 0, max: embedded ? 1 : options.poolSize, idleTimeoutMillis: POOL_IDLE_MS, reapIntervalMillis: POOL_REAP_MS, ...(embedded ? {} : { afterCreate: jitOff }) },
      discovery: { warnWhenNoEntities: false },
      colors: false,
      logger: (message) => options.logger.info({ component: 'orm' }, message),
      allowGlobalContext: false,
      debug: false,
    });
    // Replicas started together (a fresh Kubernetes install) migrate one after another; the
    // later ones find nothing left to do. The embedded database has one process anyway.
    const upTo = options.migrateUpTo;
    await (embedded ? migrate(orm, upTo) : oneAtATime(url, () => migrate(orm, upTo)));
  } catch (err) {
    // The pool (a server's connections) goes with the failed start, not at the process's exit.
    await opened?.close(true).catch(() => undefined);
    await embedded?.stop();
    throw err;
  }
  const migrateRest = () => (embedded ? migrate(orm) : oneAtATime(url, () => migrate(orm)));
  return {
    embedded: embedded !== undefined,
    url,
    migrate: migrateRest,
    em: () => orm.em.fork(),
    transaction: (work) => orm.em.fork().transactional(work),
    knex: () => orm.em.getConnection().getKnex(),
    async ping() {
      await orm.em.fork().getConnection().execute('select 1');
    },
    poolUse() {
      const pool = (orm.em.getConnection().getKnex().client as { pool?: TarnPool }).pool;
      return pool ? { inUse: pool.numUsed(), idle: pool.numFree(), waiting: pool.numPendingAcquires() } : { inUse: 0, idle: 0, waiting: 0 };
    },
    async close() {
      await orm.close(true);
      await embedded?.stop();
    },
  };
}

/**
 * JIT off on each new connection: every statement here is short, and PostgreSQL compiled the
 * ingest's service lock (an estimate past jit_above_cost) in 7 to 12 ms to run it in 1.5. A SET,
 * not a startup option, which a pooler such as PgBouncer may refuse.
 */
function jitOff(connection: { query(sql: string, done: (err: Error | null) => void): void }, done: (err: Error | null, connection: unknown) => void): void {
  connection.query('set jit = off', (err) => done(err, connection));
}

/** Runs `work` holding the migration lock, on a connection of its own outside the ORM's pool. */
async function oneAtATime(url: string, work: () => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await work();
  } finally {
    // Ending the session releases the lock, also when unlocking failed.
    await client.end().catch(() => undefined);
  }
}
