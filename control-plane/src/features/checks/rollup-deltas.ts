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

const TIERS = [
  { name: 'minute', widthMs: 60_000, histogram: false },
  { name: 'hour', widthMs: 3_600_000, histogram: true },
  { name: 'day', widthMs: 86_400_000, histogram: true },
] as const;

/** The deltas of the results, each tier sorted by service and bucket. */
export function rollupDeltas(results: readonly RolledResult[]): RollupDeltas {
  // Keyed by service, then by bucket start: one pass, and no key string built per result and tier.
  const byService = new Map<string, Map<number, RollupDelta>[]>();
  for (const r of results) {
    let tiers = byService.get(r.serviceId);
    if (!tiers) byService.set(r.serviceId, (tiers = TIERS.map(() => new Map())));
    const checkedAtMs = r.checkedAt.getTime();
    const slot = histogramBucket(r.responseTimeMs);
    TIERS.forEach(({ widthMs, histogram }, t) => {
      const start = Math.floor(checkedAtMs / widthMs) * widthMs;
      let d = tiers[t]!.get(start);
      if (!d) {
        d = { service_id: r.serviceId, bucket: new Date(start).toISOString(), total_checks: 0, successful_checks: 0, response_time_sum_ms: 0, response_time_max_ms: 0 };
        if (histogram) d.response_histogram = [];
        tiers[t]!.set(start, d);
      }
      add(d, r, slot);
    });
  }
  // In key order, so that folders running side by side lock rollup rows in the same order.
  const deltas: RollupDeltas = { minute: [], hour: [], day: [] };
  for (const serviceId of [...byService.keys()].sort()) {
    const tiers = byService.get(serviceId)!;
    TIERS.forEach(({ name }, t) => {
      for (const start of [...tiers[t]!.keys()].sort((a, b) => a - b)) deltas[name].push(tiers[t]!.get(start)!);
    });
  }
  return deltas;
}

function add(d: RollupDelta, r: RolledResult, histogramSlot: number): void {
  d.total_checks += 1;
  if (r.status !== 'RED') d.successful_checks += 1;
  d.response_time_sum_ms += r.responseTimeMs;
  if (r.responseTimeMs > d.response_time_max_ms) d.response_time_max_ms = r.responseTimeMs;
  const h = d.response_histogram;
  if (h) {
    while (h.length <= histogramSlot) h.push(0);
    h[histogramSlot]! += 1;
  }
}

type BacklogEntry = [serviceId: string, checkedAtMs: number, status: ServiceStatus, responseTimeMs: number];

/** Stored results as one rollup backlog row: what folding needs of each, and nothing more. */
export function encodeBacklog(results: readonly RolledResult[]): string {
  return JSON.stringify(results.map((r): BacklogEntry => [r.serviceId, r.checkedAt.getTime(), r.status, r.responseTimeMs]));
}

export function decodeBacklog(row: string): RolledResult[] {
  return (JSON.parse(row) as BacklogEntry[]).map(([serviceId, checkedAtMs, status, responseTimeMs]) => ({ serviceId, checkedAt: new Date(checkedAtMs), status, responseTimeMs }));
}
