// Read side of check results: the raw log (raw table), and uptime and metrics over a period
// (rollup tables, so their cost does not grow with the raw rows).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ServiceStatus } from '../../../../shared/src/status.js';
import { HISTOGRAM_BUCKETS, quantileFromHistogram } from './response-histogram.js';
import { coverWindow, coverWindowByHours, type RollupSpan, type RollupTier } from './rollup-window.js';

export interface CheckLogEntry {
  id: string;
  serviceId: string;
  status: ServiceStatus;
  responseTimeMs: number;
  message: string;
  location: string;
  agentId: string;
  checkedAt: Date;
  details: Record<string, unknown>;
}

export interface LogQuery {
  serviceId: string;
  limit: number;
  before?: Date;
  location?: string;
}

export interface UptimeCounts {
  total: number;
  successful: number;
}

export interface MetricsBucket {
  timestamp: Date;
  total: number;
  successful: number;
  avgResponseTimeMs: number | null;
  maxResponseTimeMs: number | null;
}

export interface MetricsSummary extends UptimeCounts {
  avgResponseTimeMs: number | null;
  p95ResponseTimeMs: number | null;
}

export interface ServiceSummary extends UptimeCounts {
  serviceId: string;
  avgResponseTimeMs: number | null;
}

export interface DailyCounts extends UptimeCounts {
  serviceId: string;
  day: Date;
}

export interface CheckHistoryRepository {
  log(query: LogQuery): Promise<CheckLogEntry[]>;
  uptime(serviceId: string, from: Date, to: Date): Promise<UptimeCounts>;
  summary(serviceId: string, from: Date, to: Date): Promise<MetricsSummary>;
  buckets(serviceId: string, from: Date, to: Date, bucketSeconds: number): Promise<MetricsBucket[]>;
  /** Uptime and mean response time of each of the services (those with checks). */
  summaries(serviceIds: string[], from: Date, to: Date): Promise<ServiceSummary[]>;
  /** Per-day counts (UTC days) of the given services, days without checks left out. */
  daily(serviceIds: string[], from: Date, to: Date): Promise<DailyCounts[]>;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const TABLES: Record<RollupTier, string> = { minute: 'check_rollups_minute', hour: 'check_rollups_hour', day: 'check_rollups_day' };

/** The rollup rows of `spans`, one select per tier joined with union all, with their bindings. */
function rollupRows(spans: RollupSpan[], columns: string, owner: string, ownerParams: unknown[]): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  for (const tier of ['minute', 'hour', 'day'] as const) {
    const mine = spans.filter((s) => s.tier === tier);
    if (mine.length === 0) continue;
    parts.push(`select ${columns} from ${TABLES[tier]} where ${owner} and (${mine.map(() => '(bucket >= ? and bucket < ?)').join(' or ')})`);
    params.push(...ownerParams, ...mine.flatMap((s) => [s.from.toISOString(), s.to.toISOString()]));
  }
  return { sql: parts.join(' union all '), params };
}

/** Where a bucket width reads its points from; 5-minute points fold minute rows. */
const POINT_TIERS: Record<number, RollupTier> = { 60: 'minute', 300: 'minute', 3600: 'hour', 86_400: 'day' };

export function createCheckHistoryRepository(em: () => EntityManager): CheckHistoryRepository {
  const run = <T>(sql: string, params: unknown[]) => em().execute<T[]>(sql, params);

  async function totals(serviceId: string, from: Date, to: Date) {
    const rows = rollupRows(coverWindow(from, to), 'total_checks, successful_checks, response_time_sum_ms, response_time_max_ms', 'service_id = ?', [serviceId]);
    const [row] = await run<Record<string, unknown>>(
      `select coalesce(sum(total_checks), 0) as total, coalesce(sum(successful_checks), 0) as successful,
              sum(response_time_sum_ms) as sum_ms, max(response_time_max_ms) as max_ms
         from (${rows.sql}) as t`,
      rows.params,
    );
    const total = Number(row?.total ?? 0);
    return { total, successful: Number(row?.successful ?? 0), avgResponseTimeMs: total === 0 ? null : Number(row?.sum_ms) / total, maxResponseTimeMs: num(row?.max_ms) };
  }

  async function histogram(serviceId: string, from: Date, to: Date): Promise<number[]> {
    const rows = rollupRows(coverWindowByHours(from, to), 'response_histogram', 'service_id = ?', [serviceId]);
    const sums = await run<{ n: string; count: string }>(
      `select n, sum(h) as count from (${rows.sql}) as t, unnest(t.response_histogram) with ordinality as u(h, n) group by n`,
      rows.params,
    );
    const merged = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
    for (const { n, count } of sums) merged[Number(n) - 1] = Number(count);
    return merged;
  }

  return {
    async log({ serviceId, limit, before, location }) {
      const params: unknown[] = [serviceId];
      let where = 'service_id = ?';
      if (before) {
        where += ' and checked_at < ?';
        params.push(before.toISOString());
      }
      if (location) {
        where += ' and location = ?';
        params.push(location);
      }
      params.push(limit);
      const rows = await run<Record<string, unknown>>(
        `select id, service_id, status, response_time_ms, message, location, agent_id, checked_at, details
           from check_results where ${where} order by checked_at desc, id desc limit ?`,
        params,
      );
      return rows.map((r) => ({
        id: String(r.id),
        serviceId: String(r.service_id),
        status: r.status as ServiceStatus,
        responseTimeMs: Number(r.response_time_ms),
        message: String(r.message),
        location: String(r.location),
        agentId: String(r.agent_id),
        checkedAt: new Date(r.checked_at as string),
        details: (r.details ?? {}) as Record<string, unknown>,
      }));
    },

    async uptime(serviceId, from, to) {
      const { total, successful } = await totals(serviceId, from, to);
      return { total, successful };
    },

    async summary(serviceId, from, to) {
      const [t, h] = await Promise.all([totals(serviceId, from, to), histogram(serviceId, from, to)]);
      return {
        total: t.total,
        successful: t.successful,
        avgResponseTimeMs: t.avgResponseTimeMs,
        p95ResponseTimeMs: quantileFromHistogram(h, 0.95, t.maxResponseTimeMs),
      };
    },

    async buckets(serviceId, from, to, bucketSeconds) {
      const tier = POINT_TIERS[bucketSeconds];
      if (!tier) throw new Error(`no rollup serves ${bucketSeconds}-second buckets`);
      const width = bucketSeconds * 1000;
      const rows = await run<Record<string, unknown>>(
        `select date_bin(make_interval(secs => ?), bucket, timestamptz 'epoch') as point,
                sum(total_checks) as total, sum(successful_checks) as successful,
                sum(response_time_sum_ms) as sum_ms, max(response_time_max_ms) as max_ms
           from ${TABLES[tier]} where service_id = ? and bucket >= ? and bucket <= ?
          group by point order by point`,
        [bucketSeconds, serviceId, new Date(Math.floor(from.getTime() / width) * width).toISOString(), to.toISOString()],
      );
      return rows.map((r) => {
        const total = Number(r.total);
        return {
          timestamp: new Date(r.point as string),
          total,
          successful: Number(r.successful),
          avgResponseTimeMs: total === 0 ? null : Number(r.sum_ms) / total,
          maxResponseTimeMs: num(r.max_ms),
        };
      });
    },

    async summaries(serviceIds, from, to) {
      if (serviceIds.length === 0) return [];
      const rows = rollupRows(
        coverWindow(from, to),
        'service_id, total_checks, successful_checks, response_time_sum_ms',
        `service_id in (${serviceIds.map(() => '?').join(',')})`,
        serviceIds,
      );
      const sums = await run<Record<string, unknown>>(
        `select service_id, sum(total_checks) as total, sum(successful_checks) as successful, sum(response_time_sum_ms) as sum_ms
           from (${rows.sql}) as t group by service_id`,
        rows.params,
      );
      return sums.map((r) => {
        const total = Number(r.total);
        return { serviceId: String(r.service_id), total, successful: Number(r.successful), avgResponseTimeMs: total === 0 ? null : Number(r.sum_ms) / total };
      });
    },

    async daily(serviceIds, from, to) {
      if (serviceIds.length === 0) return [];
      const rows = await run<Record<string, unknown>>(
        `select service_id, bucket, total_checks, successful_checks from check_rollups_day
          where service_id in (${serviceIds.map(() => '?').join(',')}) and bucket >= ? and bucket <= ? order by bucket`,
        [...serviceIds, from.toISOString(), to.toISOString()],
      );
      return rows.map((r) => ({ serviceId: String(r.service_id), day: new Date(r.bucket as string), total: Number(r.total_checks), successful: Number(r.successful_checks) }));
    },
  };
}
