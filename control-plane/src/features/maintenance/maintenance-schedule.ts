// When a maintenance window is open. Pure: no clock, no database. A one-off window is its own
// time range. A recurring one opens at each run of its cron schedule, read in its time zone by
// croner exactly as cron heartbeats read theirs (a run skipped by spring-forward happens right
// after the gap, a repeated local time once), and stays open duration_minutes of elapsed time,
// so an occurrence across a clock change lasts as long as any other.
import { cronOf } from '../heartbeats/heartbeat-schedule.js';

export type WindowTiming =
  | { startsAt: Date; endsAt: Date; schedule: null; timezone: null; durationMinutes: null }
  | { startsAt: null; endsAt: null; schedule: string; timezone: string; durationMinutes: number };

export interface Occurrence {
  startsAt: Date;
  endsAt: Date;
}

/** A week: longer belongs in a one-off window (or a paused service). */
export const MAX_DURATION_MINUTES = 7 * 24 * 60;

/**
 * The occurrences that have not ended at `now`, oldest first, at most `count`: the one under
 * way (if any), then the next ones. A one-off window is its only occurrence.
 */
export function occurrencesFrom(t: WindowTiming, now: Date, count: number): Occurrence[] {
  if (t.schedule === null) return t.endsAt > now && count > 0 ? [{ startsAt: t.startsAt, endsAt: t.endsAt }] : [];
  const length = t.durationMinutes * 60_000;
  // croner lists runs strictly after its start: a run after now - duration still ends after now.
  const starts = cronOf(t.schedule, t.timezone).nextRuns(count, new Date(now.getTime() - length));
  return starts.map((startsAt) => ({ startsAt, endsAt: new Date(startsAt.getTime() + length) }));
}

/** Whether an occurrence covers `at`: started at or before it, ending after it. One cron step. */
export function isOpenAt(t: WindowTiming, at: Date): boolean {
  const [first] = occurrencesFrom(t, at, 1);
  return first !== undefined && first.startsAt <= at;
}
