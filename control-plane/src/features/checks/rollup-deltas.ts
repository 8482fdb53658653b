// What a batch of newly stored results adds to the minute, hour and day rollups: one delta
// per service and bucket, so a batch costs one upsert per rollup table however many results
// it holds.
import type { ServiceStatus } from '../../../../shared/src/status.js';
import { histogramBucket } from './response-histogram.js';

export interface RolledResult {
  serviceId: string;
  status: ServiceStatus;
  responseTimeMs: number;
  checkedAt: Date;
}

export interface RollupDelta {
  service_id: string;
  bucket: string;
  total_checks: number;
  successful_checks: number;
  response_time_sum_ms: number;
  response_time_max_ms: number;
  /**
   * Hour and day rollups only. Counts per histogram bucket, cut after the last non-zero one
   * (outpost_histogram_add treats missing buckets as zero): most results land in a few low
   * buckets, and the deltas travel to the database as JSON.
   */
  response_histogram?: number[];
}

export interface RollupDeltas {
  minute: RollupDelta[];
  hour: RollupDelta[];
  day: RollupDelta[];
}

function fold(results: readonly RolledResult[], widthMs: number, histogram: boolean): RollupDelta[] {
  const deltas = new Map<string, RollupDelta>();
  for (const r of results) {
    const start = Math.floor(r.checkedAt.getTime() / widthMs) * widthMs;
    const key = `${r.serviceId}/${start}`;
    let d = deltas.get(key);
    if (!d) {
      d = { service_id: r.serviceId, bucket: new Date(start).toISOString(), total_checks: 0, successful_checks: 0, response_time_sum_ms: 0, response_time_max_ms: 0 };
      if (histogram) d.response_histogram = [];
      deltas.set(key, d);
    }
    d.total_checks += 1;
    if (r.status !== 'RED') d.successful_checks += 1;
    d.response_time_sum_ms += r.responseTimeMs;
    if (r.responseTimeMs > d.response_time_max_ms) d.response_time_max_ms = r.responseTimeMs;
    if (d.response_histogram) {
      const h = d.response_histogram;
      const b = histogramBucket(r.responseTimeMs);
      while (h.length <= b) h.push(0);
      h[b]! += 1;
    }
  }
  return [...deltas.values()];
}

export function rollupDeltas(results: readonly RolledResult[]): RollupDeltas {
  return { minute: fold(results, 60_000, false), hour: fold(results, 3_600_000, true), day: fold(results, 86_400_000, true) };
}
