// What newly stored results add to the minute, hour and day rollups: one delta per service
// and bucket, so folding costs one upsert per rollup table however many results it covers.
// The results wait in the rollup backlog in the compact form encoded here.
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
  // In key order, so that folders running side by side lock rollup rows in the same order.
  return [...deltas.values()].sort((a, b) => (a.service_id === b.service_id ? (a.bucket < b.bucket ? -1 : 1) : a.service_id < b.service_id ? -1 : 1));
}

/** The deltas of the results, each tier sorted by service and bucket. */
export function rollupDeltas(results: readonly RolledResult[]): RollupDeltas {
  return { minute: fold(results, 60_000, false), hour: fold(results, 3_600_000, true), day: fold(results, 86_400_000, true) };
}

type BacklogEntry = [serviceId: string, checkedAtMs: number, status: ServiceStatus, responseTimeMs: number];

/** Stored results as one rollup backlog row: what folding needs of each, and nothing more. */
export function encodeBacklog(results: readonly RolledResult[]): string {
  return JSON.stringify(results.map((r): BacklogEntry => [r.serviceId, r.checkedAt.getTime(), r.status, r.responseTimeMs]));
}

export function decodeBacklog(row: string): RolledResult[] {
  return (JSON.parse(row) as BacklogEntry[]).map(([serviceId, checkedAtMs, status, responseTimeMs]) => ({ serviceId, checkedAt: new Date(checkedAtMs), status, responseTimeMs }));
}
