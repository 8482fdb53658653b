// Reads of an uptime report: the services it covers, their rollup sums, down minutes,
// response-time histograms and incidents, each one statement for every service at once.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RollupSpan, RollupTier } from '../checks/rollup-window.js';
import { HISTOGRAM_BUCKETS } from '../checks/response-histogram.js';
import type { ReportRange } from './report-range.js';

export interface ReportedService {
  id: string;
  name: string;
}

/** Which services: the given ids, or those with any of the tags, or (neither) every one. */
export interface ServiceSelection {
  serviceIds?: string[];
  tags?: string[];
}

export interface RollupTotals {
  total: number;
  successful: number;
  responseTimeSumMs: number;
  responseTimeMaxMs: number | null;
  /** Downtime of the spans read as estimated: each bucket's failed share of its length. */
  estimatedDowntimeMinutes: number;
}

export interface UptimeReportRepository {
  services(organizationId: string, selection: ServiceSelection): Promise<ReportedService[]>;
  totals(serviceIds: string[], exact: RollupSpan[], estimated: RollupSpan[]): Promise<Map<string, RollupTotals>>;
  /** Minutes in the range whose rollup counted checks and no success. */
  downMinutes(serviceIds: string[], minutes: ReportRange): Promise<Map<string, number>>;
  histograms(serviceIds: string[], spans: RollupSpan[]): Promise<Map<string, number[]>>;
  /** Alerts fired in the range, and status page incidents started in it naming the service (not counted twice when opened from one of those alerts). */
  incidents(serviceIds: string[], range: ReportRange): Promise<Map<string, number>>;
}

const TABLES: Record<RollupTier, string> = { minute: 'check_rollups_minute', hour: 'check_rollups_hour', day: 'check_rollups_day' };
const TIER_MINUTES: Record<RollupTier, number> = { minute: 1, hour: 60, day: 1440 };
const TIERS = ['minute', 'hour', 'day'] as const;

const list = (ids: unknown[]) => ids.map(() => '?').join(',');

/** One select per tier of `spans`, of `columns(tier)`, for the services; with their bindings. */
function selects(spans: RollupSpan[], serviceIds: string[], columns: (tier: RollupTier) => string): { sql: string[]; params: unknown[] } {
  const sql: string[] = [];
  const params: unknown[] = [];
  for (const tier of TIERS) {
    const mine = spans.filter((s) => s.tier === tier);
    if (mine.length === 0) continue;
    sql.push(`select ${columns(tier)} from ${TABLES[tier]} where service_id in (${list(serviceIds)}) and (${mine.map(() => '(bucket >= ? and bucket < ?)').join(' or ')})`);
    params.push(...serviceIds, ...mine.flatMap((s) => [s.from.toISOString(), s.to.toISOString()]));
  }
  return { sql, params };
}

export function createUptimeReportRepository(em: () => EntityManager): UptimeReportRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  const counts = (rows: Record<string, unknown>[], column: string) => new Map(rows.map((r) => [String(r.service_id), Number(r[column])]));

  return {
    async services(organizationId, { serviceIds, tags }) {
      const params: unknown[] = [organizationId];
      let where = 'organization_id = ?';
      if (serviceIds) {
        where += ` and id in (${list(serviceIds)})`;
        params.push(...serviceIds);
      }
      if (tags) {
        where += ` and (${tags.map(() => 'tags @> ?::jsonb').join(' or ')})`;
        params.push(...tags.map((t) => JSON.stringify([t])));
      }
      const rows = await run(`select id, name from services where ${where} order by created_at, id`, params);
      return rows.map((r) => ({ id: String(r.id), name: String(r.name) }));
    },

    async totals(serviceIds, exact, estimated) {
      if (serviceIds.length === 0 || exact.length + estimated.length === 0) return new Map();
      const base = 'service_id, total_checks, successful_checks, response_time_sum_ms, response_time_max_ms';
      const recent = selects(exact, serviceIds, () => `${base}, 0::float8 as estimated_down`);
      const older = selects(estimated, serviceIds, (tier) => `${base}, (total_checks - successful_checks)::float8 / nullif(total_checks, 0) * ${TIER_MINUTES[tier]} as estimated_down`);
      const rows = await run(
        `select service_id, sum(total_checks) as total, sum(successful_checks) as successful, sum(response_time_sum_ms) as sum_ms,
                max(response_time_max_ms) as max_ms, coalesce(sum(estimated_down), 0) as estimated_down
           from (${[...recent.sql, ...older.sql].join(' union all ')}) as t group by service_id`,
        [...recent.params, ...older.params],
      );
      return new Map(
        rows.map((r) => [
          String(r.service_id),
          {
            total: Number(r.total),
            successful: Number(r.successful),
            responseTimeSumMs: Number(r.sum_ms),
            responseTimeMaxMs: r.max_ms === null ? null : Number(r.max_ms),
            estimatedDowntimeMinutes: Number(r.estimated_down),
          },
        ]),
      );
    },

    // Only hours with a failure are looked into: most hours have none, and a month of minute
    // rows per service is tens of thousands.
    async downMinutes(serviceIds, { from, to }) {
      if (serviceIds.length === 0) return new Map();
      const hourStart = new Date(Math.floor(from.getTime() / 3_600_000) * 3_600_000);
      const rows = await run(
        `select m.service_id, count(*) as down
           from check_rollups_hour h
           join check_rollups_minute m on m.service_id = h.service_id and m.bucket >= h.bucket and m.bucket < h.bucket + interval '1 hour'
          where h.service_id in (${list(serviceIds)}) and h.bucket >= ? and h.bucket < ? and h.successful_checks < h.total_checks
            and m.bucket >= ? and m.bucket < ? and m.successful_checks = 0 and m.total_checks > 0
          group by m.service_id`,
        [...serviceIds, hourStart.toISOString(), to.toISOString(), from.toISOString(), to.toISOString()],
      );
      return counts(rows, 'down');
    },

    async histograms(serviceIds, spans) {
      if (serviceIds.length === 0 || spans.length === 0) return new Map();
      const rows = selects(spans, serviceIds, () => 'service_id, response_histogram');
      const sums = await run(
        `select service_id, n, sum(h) as count
           from (${rows.sql.join(' union all ')}) as t, unnest(t.response_histogram) with ordinality as u(h, n)
          group by service_id, n`,
        rows.params,
      );
      const merged = new Map<string, number[]>();
      for (const r of sums) {
        const id = String(r.service_id);
        let histogram = merged.get(id);
        if (!histogram) merged.set(id, (histogram = new Array<number>(HISTOGRAM_BUCKETS).fill(0)));
        histogram[Number(r.n) - 1] = Number(r.count);
      }
      return merged;
    },

    async incidents(serviceIds, { from, to }) {
      if (serviceIds.length === 0) return new Map();
      const range = [from.toISOString(), to.toISOString()];
      const rows = await run(
        `select s.id as service_id,
                (select count(*) from alerts a where a.service_id = s.id and a.fired_at >= ? and a.fired_at < ?)
              + (select count(*) from status_page_incidents i
                  where i.organization_id = s.organization_id and i.starts_at >= ? and i.starts_at < ?
                    and (i.affected @> jsonb_build_array(jsonb_build_object('service_id', s.id::text))
                         or exists (select 1 from status_page_incident_updates u
                                     where u.incident_id = i.id and u.affected @> jsonb_build_array(jsonb_build_object('service_id', s.id::text))))
                    and not exists (select 1 from alerts a where a.id = i.alert_id and a.service_id = s.id and a.fired_at >= ? and a.fired_at < ?)) as incidents
           from services s where s.id in (${list(serviceIds)})`,
        [...range, ...range, ...range, ...serviceIds],
      );
      return counts(rows, 'incidents');
    },
  };
}
