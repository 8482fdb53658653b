// When a heartbeat's next ping is due. Pure: no clock, no database. Cron occurrences come from
// croner in the heartbeat's time zone, which handles DST as Vixie cron does: a time skipped by
// spring-forward runs at the first valid time after the gap, and a time repeated by fall-back
// runs once.
import { Cron } from 'croner';

export type HeartbeatTiming =
  | { intervalSeconds: number; schedule: null; timezone: string }
  | { intervalSeconds: null; schedule: string; timezone: string };

/** What the deadline job and the pings store: the next expected ping and its deadline. */
export interface Expectation {
  expectedAt: Date | null;
  deadlineAt: Date | null;
}

/** The one way a schedule is read (maintenance windows share it): same fields, same DST rules. */
export function cronOf(schedule: string, timezone: string): Cron {
  // 5 fields, or 6 with seconds first; croner's nicknames (@daily, @hourly...) too.
  return new Cron(schedule, { timezone, mode: '5-or-6-parts', paused: true });
}

/** The canonical IANA name ("europe/berlin" → "Europe/Berlin"), or null when unknown. */
export function canonicalTimezone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** Why a cron expression is refused, in words for the API; null when it is fine. */
export function scheduleProblem(schedule: string, timezone = 'UTC'): string | null {
  if (schedule.trim() === '@reboot') return 'schedule @reboot has no time: use a time-based expression';
  let cron: Cron;
  try {
    cron = cronOf(schedule, timezone);
  } catch (err) {
    return `schedule is not a valid cron expression: ${(err as Error).message.replace(/^CronPattern: /, '')}`;
  }
  if (cron.nextRun(new Date()) === null) return 'schedule never fires (no date matches it)';
  return null;
}

/** The first scheduled occurrence strictly after `after`, or null if there is none. */
export function nextOccurrence(schedule: string, timezone: string, after: Date): Date | null {
  return cronOf(schedule, timezone).nextRun(after);
}

function withGrace(expectedAt: Date | null, graceSeconds: number): Expectation {
  return { expectedAt, deadlineAt: expectedAt && new Date(expectedAt.getTime() + graceSeconds * 1000) };
}

/**
 * After a ping at `at` (or, for a cron heartbeat, its creation or a change of schedule): the
 * next interval, or the first occurrence after `at`.
 */
export function expectationAfter(t: HeartbeatTiming, graceSeconds: number, at: Date): Expectation {
  const expectedAt = t.schedule === null ? new Date(at.getTime() + t.intervalSeconds * 1000) : nextOccurrence(t.schedule, t.timezone, at);
  return withGrace(expectedAt, graceSeconds);
}

/**
 * After a missed deadline at `now`: an interval heartbeat waits for its next ping (one failing
 * result per silence, as before cron existed) and still shows when it was due; a cron one
 * expects the next run after now, so each missed run is one failing result.
 */
export function expectationAfterMiss(t: HeartbeatTiming, graceSeconds: number, missedExpectedAt: Date | null, now: Date): Expectation {
  if (t.schedule === null) return { expectedAt: missedExpectedAt, deadlineAt: null };
  return withGrace(nextOccurrence(t.schedule, t.timezone, now), graceSeconds);
}

/** A changed grace keeps the expected ping and moves only its deadline. */
export function regraced(expectedAt: Date | null, graceSeconds: number): Expectation {
  return withGrace(expectedAt, graceSeconds);
}

/** The interval the heartbeat's service shows: for a schedule, the gap between its next two runs. */
export function typicalIntervalSeconds(t: HeartbeatTiming, now: Date): number {
  if (t.schedule === null) return t.intervalSeconds;
  const [first, second] = cronOf(t.schedule, t.timezone).nextRuns(2, now);
  const gap = first && second ? Math.round((second.getTime() - first.getTime()) / 1000) : 86_400;
  return Math.min(Math.max(gap, 1), 30 * 86_400);
}
