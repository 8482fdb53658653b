// History of one service: the check log, uptime and metrics (API.md "Services").
import { validationFailed } from '../../errors.js';
import type { CheckHistoryRepository } from './check-history.repository.js';
import { BUCKETS, MAX_POINTS, PERIODS, type Bucket, type Period } from './history.schema.js';

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
