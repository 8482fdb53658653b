// Percentiles from the rollups' response-time histograms. The buckets mirror the SQL
// function outpost_response_histogram (migration 0006): bucket i holds values in
// (2^((i-1)/4), 2^(i/4)] ms, bucket 0 everything up to 1 ms, the last one everything above.

export const HISTOGRAM_BUCKETS = 72;

/** The bucket a response time falls in (the SQL function files values the same way). */
export function histogramBucket(ms: number): number {
  return Math.min(HISTOGRAM_BUCKETS - 1, Math.max(0, Math.ceil(4 * Math.log2(Math.max(ms, 1)))));
}

const upperBound = (i: number) => 2 ** (i / 4);
const lowerBound = (i: number) => (i === 0 ? 0 : 2 ** ((i - 1) / 4));

/**
 * The q-quantile (0 < q ≤ 1) of the values counted in `histogram`, interpolated linearly in
 * its bucket and never above the largest value seen; null when the histogram is empty.
 */
export function quantileFromHistogram(histogram: readonly number[], q: number, maxValue: number | null): number | null {
  const total = histogram.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < histogram.length; i++) {
    const n = histogram[i] ?? 0;
    if (n > 0 && below + n >= rank) {
      const upper = i === HISTOGRAM_BUCKETS - 1 ? (maxValue ?? upperBound(i)) : upperBound(i);
      const estimate = lowerBound(i) + (upper - lowerBound(i)) * ((rank - below) / n);
      return maxValue === null ? estimate : Math.min(estimate, maxValue);
    }
    below += n;
  }
  return maxValue;
}
