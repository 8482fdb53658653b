import { expect } from 'chai';
import { HISTOGRAM_BUCKETS, quantileFromHistogram } from '../../../control-plane/src/features/checks/response-histogram.js';

/** The bucket of a value, as outpost_response_histogram (migration 0006) files it. */
const bucketOf = (ms: number) => Math.min(HISTOGRAM_BUCKETS - 1, Math.max(0, Math.ceil(4 * Math.log2(Math.max(ms, 1)))));

function histogramOf(values: number[]): number[] {
  const h = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
  for (const v of values) h[bucketOf(v)]! += 1;
  return h;
}

describe('response-time histograms', () => {
  it('answers null for no values', () => {
    expect(quantileFromHistogram(new Array(HISTOGRAM_BUCKETS).fill(0), 0.95, null)).to.equal(null);
  });

  it('estimates p95 within 10 % for spread-out values', () => {
    const values = Array.from({ length: 1000 }, (_, i) => 5 + i * 2.5);
    const exact = values[Math.ceil(0.95 * values.length) - 1]!;
    const estimate = quantileFromHistogram(histogramOf(values), 0.95, Math.max(...values))!;
    expect(Math.abs(estimate - exact) / exact).to.be.below(0.1);
  });

  it('never answers more than the largest value seen', () => {
    expect(quantileFromHistogram(histogramOf([40, 40, 40]), 0.95, 40)).to.equal(40);
  });

  it('keeps sub-millisecond and very slow values in the end buckets', () => {
    expect(quantileFromHistogram(histogramOf([0.2, 0.3]), 0.5, 0.3)).to.be.at.most(0.3);
    expect(quantileFromHistogram(histogramOf([500_000]), 0.95, 500_000)).to.be.within(2 ** (70 / 4), 500_000);
  });
});
