// Fixed-window counters per key (rate-limiter-flexible), behind one small interface so a
// limit can live in PostgreSQL (shared by every replica) or in memory (per process) without
// its users knowing which. The library was chosen because it is well kept, atomic on
// PostgreSQL (one upsert per event) and has the same semantics in memory.
import type { Knex } from '@mikro-orm/knex';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../errors.js';

export interface RateLimit {
  /** Events allowed per window. */
  points: number;
  windowSeconds: number;
}

export interface Usage {
  limit: number;
  remaining: number;
  resetInSeconds: number;
}

export interface RateLimiter {
  readonly limit: RateLimit;
  /** Counts one event; RATE_LIMITED (with Retry-After) when the window's budget is spent. */
  consume(key: string, message: string): Promise<Usage>;
  /** RATE_LIMITED when the budget is spent, without counting anything. */
  assertAvailable(key: string, message: string): Promise<void>;
  reset(key: string): Promise<void>;
}

/** Makes the limiters of one store; `name` keeps their keys apart. */
export type RateLimiterFactory = (name: string, limit: RateLimit) => RateLimiter;

/** The table made by migration 0010 (unlogged: counters need no crash safety). */
const TABLE = 'rate_limits';

export function postgresRateLimiters(knex: Knex): RateLimiterFactory {
  const store = unnamedStatements(knex);
  return (name, limit) =>
    adapt(
      new RateLimiterPostgres({ storeClient: store, storeType: 'pool', tableName: TABLE, tableCreated: true, keyPrefix: name, points: limit.points, duration: limit.windowSeconds }),
      limit,
    );
}

/**
 * The library names its statements (server-side prepared statements). The embedded database
 * serves every connection from one session, where a name prepared by an earlier connection
 * still exists and a new one fails to prepare it again; so the statements go unnamed, on a
 * connection of the ORM's pool.
 */
function unnamedStatements(knex: Knex) {
  const client = knex.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<unknown> };
  return {
    async query({ text, values }: { text: string; values?: unknown[] }) {
      const connection = await client.acquireConnection();
      try {
        return await connection.query({ text, values });
      } finally {
        await client.releaseConnection(connection);
      }
    },
  };
}

interface PgConnection {
  query(q: { text: string; values?: unknown[] }): Promise<unknown>;
}

export function memoryRateLimiters(): RateLimiterFactory {
  return (name, limit) => adapt(new RateLimiterMemory({ keyPrefix: name, points: limit.points, duration: limit.windowSeconds }), limit);
}

function adapt(limiter: RateLimiterAbstract, limit: RateLimit): RateLimiter {
  const refused = (res: RateLimiterRes, message: string) =>
    new AppError('RATE_LIMITED', message, { retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) });
  return {
    limit,
    async consume(key, message) {
      try {
        const res = await limiter.consume(key);
        return { limit: limit.points, remaining: res.remainingPoints, resetInSeconds: Math.ceil(res.msBeforeNext / 1000) };
      } catch (err) {
        // The library rejects with its result when over the limit, and with an Error when the store fails.
        if (err instanceof RateLimiterRes) throw refused(err, message);
        throw err;
      }
    },
    async assertAvailable(key, message) {
      const res = await limiter.get(key);
      if (res && res.consumedPoints >= limit.points) throw refused(res, message);
    },
    async reset(key) {
      await limiter.delete(key);
    },
  };
}
