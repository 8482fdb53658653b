// Keeps the day partitions of the raw results and the minute rollups: creates a day's
// partition before anything is written to it, and drops whole days once retention no longer
// keeps them (no row-by-row DELETE over millions of rows). The SQL functions it calls
// (migration 0006) tolerate several replicas doing the same at once.
import type { EntityManager, QueryResult } from '@mikro-orm/postgresql';
import type { Clock } from '../../clock.js';

const DAY_MS = 86_400_000;
/** Tables partitioned by day on their time column. */
const DAY_PARTITIONED = ['check_results', 'check_rollups_minute'] as const;
/** Minute points serve periods up to 30 days (5-minute buckets); a day more for the edge. */
export const MINUTE_ROLLUP_DAYS = 31;
/** Hour rollups serve the edges of windows up to 90 days and the 1-hour points of 90 days. */
export const HOUR_ROLLUP_DAYS = 91;
/** Day rollups feed the 90 daily bars of status pages and long reports. */
export const DAY_ROLLUP_DAYS = 400;
/** Partitions made ahead of time, so ingest rarely has to create one itself. */
const DAYS_AHEAD = 2;

export interface PartitionKeeper {
  /** Makes sure every day these times fall in has its partitions. */
  ensure(times: Date[]): Promise<void>;
  /** Creates the coming days' partitions and drops what retention no longer keeps; answers how many went. */
  maintain(): Promise<number>;
  /** The oldest time a raw result may have and still be kept. */
  retainedSince(): Date;
  /** The oldest minute rollup kept: older days' partitions are dropped. */
  minuteRollupsSince(): Date;
  /** Forgets which partitions exist, after a write found one missing. */
  forget(): void;
}

const dayKey = (t: Date | number) => new Date(Math.floor(new Date(t).getTime() / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

export function createPartitionKeeper(em: () => EntityManager, clock: Clock, retentionDays: number): PartitionKeeper {
  const known = new Set<string>();
  const minuteRollupDays = Math.max(retentionDays, MINUTE_ROLLUP_DAYS);
  const today = () => Math.floor(clock.now().getTime() / DAY_MS) * DAY_MS;

  async function create(days: string[]): Promise<void> {
    for (const day of days) {
      await em().execute(
        `select ${DAY_PARTITIONED.map(() => 'outpost_ensure_day_partition(?, ?::date)').join(', ')}`,
        DAY_PARTITIONED.flatMap((table) => [table, day]),
      );
      known.add(day);
    }
  }

  async function dropBefore(table: string, days: number): Promise<number> {
    const [row] = await em().execute<{ dropped: number }[]>('select outpost_drop_day_partitions_before(?, ?::date) as dropped', [table, dayKey(today() - days * DAY_MS)]);
    return Number(row?.dropped ?? 0);
  }

  async function deleteBefore(table: string, days: number): Promise<number> {
    const { affectedRows } = await em().execute<QueryResult>(`delete from ${table} where bucket < ?`, [new Date(today() - days * DAY_MS).toISOString()], 'run');
    return affectedRows;
  }

  return {
    async ensure(times) {
      const days = new Set<number>();
      for (const t of times) days.add(Math.floor(t.getTime() / DAY_MS));
      await create([...days].map((day) => dayKey(day * DAY_MS)).filter((d) => !known.has(d)));
    },

    async maintain() {
      await create(Array.from({ length: DAYS_AHEAD + 1 }, (_, i) => dayKey(today() + i * DAY_MS)).filter((d) => !known.has(d)));
      const dropped = (await dropBefore('check_results', retentionDays)) + (await dropBefore('check_rollups_minute', minuteRollupDays));
      if (dropped > 0) known.clear();
      return dropped + (await deleteBefore('check_rollups_hour', HOUR_ROLLUP_DAYS)) + (await deleteBefore('check_rollups_day', DAY_ROLLUP_DAYS));
    },

    retainedSince() {
      return new Date(today() - retentionDays * DAY_MS);
    },

    minuteRollupsSince() {
      return new Date(today() - minuteRollupDays * DAY_MS);
    },

    forget() {
      known.clear();
    },
  };
}
