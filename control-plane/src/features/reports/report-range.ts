// The time range of an uptime report: [from, to), at most MAX_REPORT_DAYS long. A date alone
// means midnight UTC; as `to` it means the end of that day, so from=2024-01-01&to=2024-01-31
// is January whole, as a person reads it.
import { validationFailed } from '../../errors.js';

export interface ReportRange {
  from: Date;
  /** Exclusive. */
  to: Date;
}

/** Day rollups are kept this long (partition-keeper.ts DAY_ROLLUP_DAYS). */
export const MAX_REPORT_DAYS = 400;
/** Without `from`, a report covers the 30 days before `to`. */
const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;

const isDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v);

function instant(value: string, endOfDay: boolean): Date {
  if (!isDate(value)) return new Date(value);
  const midnight = Date.parse(`${value}T00:00:00Z`);
  return new Date(endOfDay ? midnight + DAY_MS : midnight);
}

/** Inputs already validated as ISO dates or timestamps (reports.schema.ts). */
export function reportRange(from: string | undefined, to: string | undefined, now: Date): ReportRange {
  const end = to === undefined ? now : instant(to, true);
  const start = from === undefined ? new Date(end.getTime() - DEFAULT_DAYS * DAY_MS) : instant(from, false);
  if (start.getTime() >= end.getTime()) throw validationFailed('from must be before to', [{ path: 'from', message: 'must be before to' }]);
  if (end.getTime() - start.getTime() > MAX_REPORT_DAYS * DAY_MS) {
    throw validationFailed(`a report covers at most ${MAX_REPORT_DAYS} days`, [{ path: 'to', message: `at most ${MAX_REPORT_DAYS} days after from` }]);
  }
  return { from: start, to: end };
}

/** The calendar month (UTC) before the one `now` falls in. */
export function previousMonth(now: Date): ReportRange {
  return { from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)), to: startOfMonth(now) };
}

export function startOfMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export function startOfNextMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}
