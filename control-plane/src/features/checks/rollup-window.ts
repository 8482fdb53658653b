// Which rollup rows answer a time window: whole days from the day rollups, the hours at
// either edge from the hour rollups, the minutes at either edge from the minute rollups.
// A 90-day window reads at most ~90 + 2·23 + 2·59 rows, however many raw results it holds.

export type RollupTier = 'minute' | 'hour' | 'day';

/** Buckets of one tier starting in [from, to). */
export interface RollupSpan {
  tier: RollupTier;
  from: Date;
  to: Date;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit;
const ceilTo = (t: number, unit: number) => Math.ceil(t / unit) * unit;

/**
 * Covers [from, to] at minute precision: the minute holding `from` and the one holding `to`
 * are included whole.
 */
export function coverWindow(from: Date, to: Date): RollupSpan[] {
  return cover(floorTo(from.getTime(), MINUTE), floorTo(to.getTime(), MINUTE) + MINUTE);
}

/**
 * Covers [from, to] with hours and days only (the hours holding either end included whole):
 * for what only hours and days keep, such as the response-time histograms.
 */
export function coverWindowByHours(from: Date, to: Date): RollupSpan[] {
  return cover(floorTo(from.getTime(), HOUR), ceilTo(to.getTime() + 1, HOUR));
}

function cover(start: number, end: number): RollupSpan[] {
  const spans: RollupSpan[] = [];
  const add = (tier: RollupTier, from: number, to: number) => {
    if (from < to) spans.push({ tier, from: new Date(from), to: new Date(to) });
  };
  const firstHour = ceilTo(start, HOUR);
  const lastHour = floorTo(end, HOUR);
  if (firstHour >= lastHour) {
    add('minute', start, end);
    return spans;
  }
  const firstDay = ceilTo(firstHour, DAY);
  const lastDay = floorTo(lastHour, DAY);
  add('minute', start, firstHour);
  if (firstDay >= lastDay) {
    add('hour', firstHour, lastHour);
  } else {
    add('hour', firstHour, firstDay);
    add('day', firstDay, lastDay);
    add('hour', lastDay, lastHour);
  }
  add('minute', lastHour, end);
  return spans;
}
