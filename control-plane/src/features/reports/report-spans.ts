// Which rollups answer each part of a report's range. Minute rollups are kept for a month or
// so; before that only hours and days remain, so a long range is read in two parts: the recent
// one at minute precision, with downtime counted minute by minute, and the older one from
// hours and days, with downtime estimated from the share of failed checks.
import { coverWindow, coverWindowByHours, type RollupSpan } from '../checks/rollup-window.js';
import type { ReportRange } from './report-range.js';

export interface ReportSpans {
  /** Counts and response times of the recent part. */
  exact: RollupSpan[];
  /** Minutes whose failures are counted one by one: the recent part, or null. */
  minutes: ReportRange | null;
  /** Counts and response times of the part before `exactSince`, hours and days only. */
  estimated: RollupSpan[];
  /** Response-time histograms, which only hours and days keep. */
  histograms: RollupSpan[];
}

const MINUTE = 60_000;

/** `exactSince`: the oldest minute that still has its minute rollups (a day boundary). */
export function reportSpans({ from, to }: ReportRange, exactSince: Date): ReportSpans {
  const split = new Date(Math.min(Math.max(from.getTime(), exactSince.getTime()), to.getTime()));
  // The cover functions take inclusive ends; the range's end is exclusive.
  const before = (t: Date) => new Date(t.getTime() - 1);
  const recent = split < to;
  return {
    exact: recent ? coverWindow(split, before(to)) : [],
    minutes: recent ? { from: new Date(Math.floor(split.getTime() / MINUTE) * MINUTE), to: new Date(Math.ceil(to.getTime() / MINUTE) * MINUTE) } : null,
    estimated: from < split ? coverWindowByHours(from, before(split)) : [],
    histograms: coverWindowByHours(from, before(to)),
  };
}
