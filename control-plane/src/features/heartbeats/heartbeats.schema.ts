// Heartbeat requests and answers. A heartbeat is expected either every interval_seconds or at
// each occurrence of a cron schedule (in a time zone); exactly one of the two is set.
import { z } from 'zod';
import { readOnly } from '../../http/validate.js';
import { scheduleField, timezoneField } from './schedule-fields.js';

const MAX_RUNTIME_SECONDS = 7 * 86_400;

const seconds = (field: string, min: number, max = 30 * 86_400) =>
  z
    .number({ message: `${field} must be an integer` })
    .int(`${field} must be an integer`)
    .min(min, `${field} must be at least ${min}`)
    .max(max, `${field} must be at most ${max}`);

const schedule = scheduleField({
  description:
    'A cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first, or a nickname (@hourly, @daily, @weekly, @monthly, @yearly). A ping is expected at each occurrence.',
  example: '30 2 * * *',
});

const timezone = timezoneField;

const fields = {
  name: z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200),
  interval_seconds: seconds('interval_seconds', 1).meta({ description: 'A ping is expected this long after the previous one (instead of schedule)' }),
  schedule,
  timezone,
  grace_seconds: seconds('grace_seconds', 0).meta({ description: 'How late a ping may be before the heartbeat fails' }),
  max_runtime_seconds: seconds('max_runtime_seconds', 1, MAX_RUNTIME_SECONDS).meta({
    description: 'After a /start ping, the run fails if no ping or /fail follows within this time; null: no limit',
  }),
};

type ModeFields = { interval_seconds?: number | null; schedule?: string | null; timezone?: string | null };

/** Exactly one of interval_seconds and schedule on create; at most one on update (it switches the mode). */
function checkMode(required: boolean) {
  return (input: ModeFields, ctx: z.core.$RefinementCtx<ModeFields>) => {
    const interval = input.interval_seconds != null;
    const cron = input.schedule != null;
    if (interval && cron) ctx.addIssue({ code: 'custom', path: ['schedule'], message: 'give either interval_seconds or schedule, not both' });
    else if (required && !interval && !cron) ctx.addIssue({ code: 'custom', path: ['interval_seconds'], message: 'interval_seconds or schedule is required' });
    else if (interval && input.timezone != null) ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'timezone applies only to a schedule' });
  };
}

export const CreateHeartbeatInput = z
  .strictObject({
    name: fields.name,
    interval_seconds: fields.interval_seconds.nullish(),
    schedule: fields.schedule.nullish(),
    timezone: fields.timezone.nullish(),
    grace_seconds: fields.grace_seconds.default(60),
    max_runtime_seconds: fields.max_runtime_seconds.nullable().default(null),
  })
  .superRefine(checkMode(true));
export type CreateHeartbeatInput = z.infer<typeof CreateHeartbeatInput>;

export const UpdateHeartbeatInput = z
  .strictObject({
    ...readOnly('id', 'organization_id', 'key', 'ping_url', 'status', 'last_ping_at', 'last_started_at', 'next_expected_at', 'service_id', 'created_at'),
    name: fields.name.optional(),
    interval_seconds: fields.interval_seconds.nullish(),
    schedule: fields.schedule.nullish(),
    timezone: fields.timezone.nullish(),
    grace_seconds: fields.grace_seconds.optional(),
    max_runtime_seconds: fields.max_runtime_seconds.nullish(),
  })
  .superRefine(checkMode(false));
export type UpdateHeartbeatInput = z.infer<typeof UpdateHeartbeatInput>;

export const HeartbeatJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    service_id: z.uuid(),
    name: z.string(),
    interval_seconds: z.int().nullable().meta({ description: 'Set for an interval heartbeat; null for a cron one' }),
    schedule: z.string().nullable().meta({ description: 'Set for a cron heartbeat; null for an interval one' }),
    timezone: z.string().nullable().meta({ description: 'The time zone of schedule; null for an interval heartbeat' }),
    grace_seconds: z.int(),
    max_runtime_seconds: z.int().nullable(),
    key: z.string(),
    ping_url: z.string().meta({ description: 'Relative to the control plane: GET, POST or HEAD records a ping' }),
    status: z.enum(['GREEN', 'YELLOW', 'RED']).nullable(),
    last_ping_at: z.iso.datetime().nullable(),
    last_started_at: z.iso.datetime().nullable().meta({ description: 'The last /start ping' }),
    next_expected_at: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'When the next ping is due (it fails grace_seconds later); null for an interval heartbeat never pinged, or a schedule with no further run' }),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'Heartbeat' });
