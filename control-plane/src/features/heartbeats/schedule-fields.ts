// The request fields of a cron schedule, shared by cron heartbeats and recurring maintenance
// windows: the same parser (heartbeat-schedule.ts), the same messages.
import { z } from 'zod';
import { canonicalTimezone, scheduleProblem } from './heartbeat-schedule.js';

export function scheduleField(meta: { description: string; example: string }) {
  return z
    .string({ message: 'schedule must be a string' })
    .trim()
    .min(1, 'schedule must not be empty')
    .max(200, 'schedule must be at most 200 characters')
    .superRefine((value, ctx) => {
      const problem = scheduleProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta(meta);
}

const TIMEZONE_MESSAGE = 'timezone must be an IANA time zone, e.g. Europe/Berlin';

/** An IANA time zone, answered in its canonical spelling. */
export const timezoneField = z
  .string({ message: TIMEZONE_MESSAGE })
  .transform((value, ctx) => {
    const canonical = canonicalTimezone(value);
    if (canonical === null) ctx.addIssue({ code: 'custom', message: TIMEZONE_MESSAGE });
    return canonical ?? value;
  })
  .meta({ description: 'The IANA time zone the schedule is read in (only with schedule; default UTC)', example: 'Europe/Berlin' });
