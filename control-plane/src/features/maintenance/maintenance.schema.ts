// Maintenance window requests and answers. A window is one-off (starts_at and ends_at) or
// recurring (a cron schedule in a time zone, each occurrence lasting duration_minutes); a
// request gives the fields of one form only, read and validated like a cron heartbeat's.
import { z } from 'zod';
import { readOnly, timestamp } from '../../http/validate.js';
import { scheduleField, timezoneField } from '../heartbeats/schedule-fields.js';
import { MAX_DURATION_MINUTES, occurrencesFrom } from './maintenance-schedule.js';
import type { MaintenanceWindow } from './maintenance.repository.js';

/** How many occurrences a window's JSON lists. */
export const LISTED_OCCURRENCES = 5;

const schedule = scheduleField({
  description:
    'A recurring window (instead of starts_at/ends_at) opens at each run of this cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first, or a nickname (@daily, @weekly...). A time skipped by a daylight-saving change opens right after the gap; a repeated time once.',
  example: '30 2 * * 0',
});

const timezone = timezoneField;

const durationMinutes = z
  .number({ message: 'duration_minutes must be an integer' })
  .int('duration_minutes must be an integer')
  .min(1, 'duration_minutes must be at least 1')
  .max(MAX_DURATION_MINUTES, `duration_minutes must be at most ${MAX_DURATION_MINUTES} (a week)`)
  .meta({ description: 'How long each occurrence of a recurring window lasts, in elapsed minutes (only with schedule)', example: 60 });

const fields = {
  name: z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200),
  starts_at: timestamp('starts_at').meta({ description: 'A one-off window opens here (instead of schedule)' }),
  ends_at: timestamp('ends_at').meta({ description: 'A one-off window closes here (after starts_at)' }),
  // Empty: the window covers every service of the organization.
  service_ids: z.array(z.uuid({ message: 'each service id must be a UUID' })).max(1000).transform((ids) => [...new Set(ids)]),
  status_page_ids: z
    .array(z.uuid({ message: 'each status page id must be a UUID' }), { message: 'status_page_ids must be an array of status page ids' })
    .max(100)
    .transform((ids) => [...new Set(ids)])
    .meta({ description: 'Status pages that announce the window: upcoming from announce_hours_before, in progress while open (its services shown under maintenance), then in their history; their subscribers hear when it is scheduled, starts and ends' }),
  announce_hours_before: z
    .number({ message: 'announce_hours_before must be an integer' })
    .int('announce_hours_before must be an integer')
    .min(0, 'announce_hours_before must be at least 0')
    .max(8760, 'announce_hours_before must be at most 8760 (a year)')
    .meta({ description: 'How long before each occurrence its status pages show it as upcoming (and subscribers hear it is scheduled)', example: 72 }),
};

export const DEFAULT_ANNOUNCE_HOURS = 72;

type FormFields = { starts_at?: string | null; ends_at?: string | null; schedule?: string | null; timezone?: string | null; duration_minutes?: number | null };
const ONE_OFF = ['starts_at', 'ends_at'] as const;
const RECURRING = ['schedule', 'duration_minutes', 'timezone'] as const;

/**
 * The fields of one form only; on create, that form complete. An update may give part of a
 * form or switch to the other (the service completes it from the stored window).
 */
function checkForm(required: boolean) {
  return (w: FormFields, ctx: z.core.$RefinementCtx<FormFields>) => {
    const once = ONE_OFF.filter((k) => w[k] != null);
    const recurring = RECURRING.filter((k) => w[k] != null);
    const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [field], message });
    if (once.length > 0 && recurring.length > 0) {
      const field = recurring[0]!;
      issue(field, field === 'schedule' ? 'give either starts_at and ends_at, or schedule and duration_minutes, not both' : `${field} applies only to a recurring window (with schedule), not to starts_at and ends_at`);
    } else if (!required) {
      return;
    } else if (once.length > 0) {
      for (const k of ONE_OFF.filter((k) => w[k] == null)) issue(k, `${k} is required`);
    } else if (recurring.length > 0) {
      for (const k of (['schedule', 'duration_minutes'] as const).filter((k) => w[k] == null)) issue(k, `${k} is required for a recurring window`);
    } else {
      issue('starts_at', 'starts_at and ends_at (a one-off window), or schedule and duration_minutes (a recurring one), are required');
    }
  };
}

const ordered = (w: FormFields) => !w.starts_at || !w.ends_at || Date.parse(w.ends_at) > Date.parse(w.starts_at);
const orderMessage = { message: 'ends_at must be after starts_at', path: ['ends_at'] };

const formFields = {
  starts_at: fields.starts_at.nullish(),
  ends_at: fields.ends_at.nullish(),
  schedule: schedule.nullish(),
  timezone: timezone.nullish(),
  duration_minutes: durationMinutes.nullish(),
};

export const CreateWindowInput = z
  .strictObject({
    name: fields.name,
    ...formFields,
    service_ids: fields.service_ids.default([]),
    status_page_ids: fields.status_page_ids.default([]),
    announce_hours_before: fields.announce_hours_before.default(DEFAULT_ANNOUNCE_HOURS),
  })
  .superRefine(checkForm(true))
  .refine(ordered, orderMessage);
export type CreateWindowInput = z.infer<typeof CreateWindowInput>;

export const UpdateWindowInput = z
  .strictObject({
    ...readOnly('id', 'organization_id', 'created_at', 'updated_at', 'active', 'next_occurrences'),
    name: fields.name.optional(),
    ...formFields,
    service_ids: fields.service_ids.optional(),
    status_page_ids: fields.status_page_ids.optional(),
    announce_hours_before: fields.announce_hours_before.optional(),
  })
  .superRefine(checkForm(false))
  .refine(ordered, orderMessage);
export type UpdateWindowInput = z.infer<typeof UpdateWindowInput>;

export function toWindowJson(w: MaintenanceWindow, now: Date) {
  const occurrences = occurrencesFrom(w, now, LISTED_OCCURRENCES);
  return {
    id: w.id,
    organization_id: w.organizationId,
    name: w.name,
    starts_at: w.startsAt?.toISOString() ?? null,
    ends_at: w.endsAt?.toISOString() ?? null,
    schedule: w.schedule,
    timezone: w.timezone,
    duration_minutes: w.durationMinutes,
    service_ids: w.serviceIds,
    status_page_ids: w.statusPageIds,
    announce_hours_before: w.announceHoursBefore,
    active: occurrences[0] !== undefined && occurrences[0].startsAt <= now,
    next_occurrences: occurrences.map((o) => ({ starts_at: o.startsAt.toISOString(), ends_at: o.endsAt.toISOString() })),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

const Occurrence = z.object({ starts_at: z.iso.datetime(), ends_at: z.iso.datetime() }).meta({ id: 'MaintenanceOccurrence' });

export const WindowJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    starts_at: z.iso.datetime().nullable().meta({ description: 'Set for a one-off window; null for a recurring one' }),
    ends_at: z.iso.datetime().nullable().meta({ description: 'Set for a one-off window; null for a recurring one' }),
    schedule: z.string().nullable().meta({ description: 'The cron expression of a recurring window; null for a one-off one' }),
    timezone: z.string().nullable().meta({ description: 'The time zone of schedule; null for a one-off window' }),
    duration_minutes: z.int().nullable().meta({ description: 'How long each occurrence lasts; null for a one-off window' }),
    service_ids: z.array(z.uuid()).meta({ description: 'Empty: every service of the organization' }),
    status_page_ids: z.array(z.uuid()),
    announce_hours_before: z.int(),
    active: z.boolean().meta({ description: 'Whether an occurrence (or the one-off window) is open now: matching alerts are held' }),
    next_occurrences: z.array(Occurrence).max(LISTED_OCCURRENCES).meta({
      description: `The occurrences not yet ended, the one under way first, at most ${LISTED_OCCURRENCES}: a one-off window lists itself until it ends, then nothing`,
    }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'MaintenanceWindow' });
