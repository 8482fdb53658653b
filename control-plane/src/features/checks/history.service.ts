// History of one service: the check log, uptime and metrics (API.md "Services").
import { validationFailed } from '../../errors.js';
import type { CheckHistoryRepository } from './check-history.repository.js';
import { BUCKETS, MAX_POINTS, PERIODS, type Bucket, type Period } from './history.schema.js';

export interface ServiceFacts {
  id: string;
  name: string;
  checkType: string;
  status: string | null;
}

const DEFAULT_BUCKET: Record<Period, Bucket> = { '24h': '1h', '7d': '1h', '30d': '1d', '90d': '1d' };

const percentage = (successful: number, total: number) => (total === 0 ? null : Math.round((successful / total) * 100_000) / 1000);
const rounded = (ms: number | null) => (ms === null ? null : Math.round(ms * 10) / 10);

export function createHistoryService(history: CheckHistoryRepository, now: () => Date = () => new Date()) {
  const window = (period: Period) => {
    const to = now();
    return { from: new Date(to.getTime() - PERIODS[period] * 1000), to };
  };

  return {
    log: history.log,

    async uptime(serviceId: string, period: Period) {
      const { from, to } = window(period);
      const counts = await history.uptime(serviceId, from, to);
      return {
        service_id: serviceId,
        period,
        from: from.toISOString(),
        to: to.toISOString(),
        uptime_percentage: percentage(counts.successful, counts.total),
        total_checks: counts.total,
        successful_checks: counts.successful,
      };
    },

    /** Uptime and mean response time of each of the services, for `GET /metrics`. */
    async overview(services: ServiceFacts[], period: Period) {
      const { from, to } = window(period);
      const found = new Map((await history.summaries(services.map((s) => s.id), from, to)).map((s) => [s.serviceId, s]));
      const totals = [...found.values()].reduce((t, s) => ({ total: t.total + s.total, successful: t.successful + s.successful }), { total: 0, successful: 0 });
      return {
        period,
        from: from.toISOString(),
        to: to.toISOString(),
        total_checks: totals.total,
        successful_checks: totals.successful,
        uptime_percentage: percentage(totals.successful, totals.total),
        services: services.map((s) => {
          const summary = found.get(s.id);
          return {
            service_id: s.id,
            name: s.name,
            check_type: s.checkType,
            status: s.status,
            total_checks: summary?.total ?? 0,
            successful_checks: summary?.successful ?? 0,
            uptime_percentage: summary ? percentage(summary.successful, summary.total) : null,
            avg_response_time_ms: rounded(summary?.avgResponseTimeMs ?? null),
          };
        }),
      };
    },

    async metrics(serviceId: string, period: Period, requestedBucket?: Bucket) {
      const bucket = requestedBucket ?? DEFAULT_BUCKET[period];
      if (PERIODS[period] / BUCKETS[bucket] > MAX_POINTS) {
        throw validationFailed(`bucket ${bucket} is too small for period ${period}; use a larger bucket`, [
          { path: 'bucket', message: `at most ${MAX_POINTS} points per answer` },
        ]);
      }
      const { from, to } = window(period);
      const [summary, buckets] = await Promise.all([
        history.summary(serviceId, from, to),
        history.buckets(serviceId, from, to, BUCKETS[bucket]),
      ]);
      return {
        service_id: serviceId,
        period,
        bucket,
        from: from.toISOString(),
        to: to.toISOString(),
        total_checks: summary.total,
        successful_checks: summary.successful,
        uptime_percentage: percentage(summary.successful, summary.total),
        avg_response_time_ms: rounded(summary.avgResponseTimeMs),
        p95_response_time_ms: rounded(summary.p95ResponseTimeMs),
        points: buckets.map((b) => ({
          timestamp: b.timestamp.toISOString(),
          total_checks: b.total,
          successful_checks: b.successful,
          uptime_percentage: percentage(b.successful, b.total),
          avg_response_time_ms: rounded(b.avgResponseTimeMs),
          max_response_time_ms: rounded(b.maxResponseTimeMs),
        })),
      };
    },
  };
}

export type HistoryService = ReturnType<typeof createHistoryService>;
