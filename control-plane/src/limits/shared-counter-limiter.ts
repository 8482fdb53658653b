// The API limit across replicas without a database write per request: each replica counts
// in memory and adds its count to a shared row per key and window (the rate_limits table)
// every FLUSH_MS while the key is in use, learning the other replicas' total as it does. The
// first request of a key in a window on a replica waits for that row, so a fresh replica
// starts from the cluster's count. The limit can be overshot only by what other replicas admitted in their last
// FLUSH_MS, which is the price of not making every request a write. Keys in use are read again
// at every flush, so a replica also learns what the others counted. Rows carry their window's
// end in `expire`, so the table's own cleanup (rate-limiter-flexible's) deletes them.
import type { Query } from '../db/pooled-sql.js';
import type { Logger } from '../logger.js';
import { AppError } from '../errors.js';
import type { RateLimit, RateLimiter, Usage } from './rate-limiter.js';

const FLUSH_MS = 200;
/** A key used this recently has its shared count read again at every flush, even with nothing to add. */
const FOLLOW_MS = 5_000;

interface Counter {
  window: number;
  /** The cluster's count as of the last flush, this replica's flushed events included. */
  shared: number;
  /** Events counted here and not yet added to the shared row. */
  pending: number;
  lastUsed: number;
}

export function sharedCounterLimiter(query: Query, name: string, limit: RateLimit, logger: Logger, now: () => number = Date.now): RateLimiter {
  const windowMs = limit.windowSeconds * 1000;
  const counters = new Map<string, Counter>();
  const rowKey = (key: string, window: number) => `${name}:${window}:${key}`;

  /** Adds `counts` to the shared rows; answers each row's total. */
  async function add(counts: { key: string; window: number; points: number }[]): Promise<Map<string, number>> {
    const rows = await query<{ key: string; points: number }>(
      `insert into rate_limits (key, points, expire)
       select v.key, v.points, v.expire from json_to_recordset($1::json) as v (key text, points int, expire bigint)
       on conflict (key) do update set points = rate_limits.points + excluded.points
       returning key, points`,
      [JSON.stringify(counts.map((c) => ({ key: rowKey(c.key, c.window), points: c.points, expire: (c.window + 1) * windowMs })))],
    );
    return new Map(rows.map((r) => [r.key, r.points]));
  }

  async function flush(): Promise<void> {
    const recent = now() - FOLLOW_MS;
    const due = [...counters].filter(([, c]) => c.pending > 0 || c.lastUsed > recent).map(([key, c]) => ({ key, window: c.window, points: c.pending, counter: c }));
    if (due.length === 0) return;
    for (const d of due) d.counter.pending -= d.points;
    try {
      const totals = await add(due);
      for (const d of due) d.counter.shared = totals.get(rowKey(d.key, d.window)) ?? d.counter.shared;
    } catch (err) {
      for (const d of due) d.counter.pending += d.points;
      logger.warn({ err }, 'could not share API rate-limit counts; counting locally meanwhile');
    }
  }
  // Flushes every FLUSH_MS while a key is in use; after that it wakes only when the earliest
  // window ends, to forget the counters of past windows. Without counters there is no timer.
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  const wakeAt = (at: number) => {
    if (at >= timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(tick, Math.max(0, at - now()));
    timer.unref();
  };
  const flushSoon = () => wakeAt(now() + FLUSH_MS);
  const tick = () => {
    timer = undefined;
    timerAt = Infinity;
    const current = Math.floor(now() / windowMs);
    for (const [key, c] of counters) if (c.window < current && c.pending === 0) counters.delete(key);
    void flush().finally(() => {
      const recent = now() - FOLLOW_MS;
      let next = Infinity;
      for (const c of counters.values()) next = Math.min(next, c.pending > 0 || c.lastUsed > recent ? now() + FLUSH_MS : (c.window + 1) * windowMs);
      if (next < Infinity) wakeAt(next);
    });
  };

  const refused = (window: number, message: string) =>
    new AppError('RATE_LIMITED', message, { retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * windowMs - now()) / 1000)) });
  const usage = (c: Counter): Usage => ({
    limit: limit.points,
    remaining: Math.max(0, limit.points - c.shared - c.pending),
    resetInSeconds: Math.ceil(((c.window + 1) * windowMs - now()) / 1000),
  });

  async function counterOf(key: string): Promise<Counter> {
    const window = Math.floor(now() / windowMs);
    const known = counters.get(key);
    if (known && known.window === window) return known;
    // New here in this window: learn the cluster's count first.
    const fresh: Counter = { window, shared: 0, pending: 0, lastUsed: now() };
    counters.set(key, fresh);
    flushSoon();
    try {
      fresh.shared = (await add([{ key, window, points: 0 }])).get(rowKey(key, window)) ?? 0;
    } catch (err) {
      logger.warn({ err }, 'could not read the shared API rate-limit count; counting locally meanwhile');
    }
    return fresh;
  }

  return {
    limit,
    async consume(key, message) {
      const c = await counterOf(key);
      c.lastUsed = now();
      flushSoon();
      if (c.shared + c.pending >= limit.points) throw refused(c.window, message);
      c.pending++;
      return usage(c);
    },
    async assertAvailable(key, message) {
      const c = await counterOf(key);
      if (c.shared + c.pending >= limit.points) throw refused(c.window, message);
    },
    async reset(key) {
      const c = counters.get(key);
      counters.delete(key);
      if (c) await query('delete from rate_limits where key = $1', [rowKey(key, c.window)]);
    },
  };
}
