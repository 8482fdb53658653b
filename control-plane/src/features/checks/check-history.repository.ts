// Read side of check results: the raw log, uptime over a period, bucketed metrics.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ServiceStatus } from '../../../../shared/src/status.js';

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

export interface CheckHistoryRepository {
  log(query: LogQuery): Promise<CheckLogEntry[]>;
  uptime(serviceId: string, from: Date, to: Date): Promise<UptimeCounts>;
  summary(serviceId: string, from: Date, to: Date): Promise<MetricsSummary>;
  buckets(serviceId: string, from: Date, to: Date, bucketSeconds: number): Promise<MetricsBucket[]>;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function createCheckHistoryRepository(em: () => EntityManager): CheckHistoryRepository {
  const run = <T>(sql: string, params: unknown[]) => em().execute<T[]>(sql, params);

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
      const [row] = await run<{ total: string; successful: string }>(
        `select count(*) as total, count(*) filter (where status <> 'RED') as successful
           from check_results where service_id = ? and checked_at >= ? and checked_at <= ?`,
        [serviceId, from.toISOString(), to.toISOString()],
      );
      return { total: Number(row?.total ?? 0), successful: Number(row?.successful ?? 0) };
    },

    async summary(serviceId, from, to) {
      const [row] = await run<Record<string, unknown>>(
        `select count(*) as total, count(*) filter (where status <> 'RED') as successful,
                avg(response_time_ms) as avg_ms,
                percentile_cont(0.95) within group (order by response_time_ms) as p95_ms
           from check_results where service_id = ? and checked_at >= ? and checked_at <= ?`,
        [serviceId, from.toISOString(), to.toISOString()],
      );
      return {
        total: Number(row?.total ?? 0),
        successful: Number(row?.successful ?? 0),
        avgResponseTimeMs: num(row?.avg_ms),
        p95ResponseTimeMs: num(row?.p95_ms),
      };
    },

    async buckets(serviceId, from, to, bucketSeconds) {
      const rows = await run<Record<string, unknown>>(
        `select date_bin(make_interval(secs => ?), checked_at, 'epoch'::timestamptz) as bucket,
                count(*) as total, count(*) filter (where status <> 'RED') as successful,
                avg(response_time_ms) as avg_ms, max(response_time_ms) as max_ms
           from check_results where service_id = ? and checked_at >= ? and checked_at <= ?
          group by bucket order by bucket`,
        [bucketSeconds, serviceId, from.toISOString(), to.toISOString()],
      );
      return rows.map((r) => ({
        timestamp: new Date(r.bucket as string),
        total: Number(r.total),
        successful: Number(r.successful),
        avgResponseTimeMs: num(r.avg_ms),
        maxResponseTimeMs: num(r.max_ms),
      }));
    },
  };
}
