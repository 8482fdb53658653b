// Written incidents of a status page: what a team tells the people who depend on it, as a
// timeline of updates. Requests and answers.
import { z } from 'zod';
import { readOnly, timestamp } from '../../http/validate.js';
import type { Incident, IncidentUpdate } from './incident.js';

export const INCIDENT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export const INCIDENT_IMPACTS = ['none', 'minor', 'major', 'critical'] as const;

const status = z.enum(INCIDENT_STATUSES, { message: `status must be one of ${INCIDENT_STATUSES.join(', ')}` });
const impact = z.enum(INCIDENT_IMPACTS, { message: `impact must be one of ${INCIDENT_IMPACTS.join(', ')}` });
const title = z.string({ message: 'title must be a string' }).trim().min(1, 'title must not be empty').max(200, 'title must be at most 200 characters');
const message = z.string({ message: 'message must be a string' }).trim().min(1, 'message must not be empty').max(10_000, 'message must be at most 10000 characters');
const affected = z
  .array(
    z.strictObject({
      service_id: z.uuid({ message: 'each affected service_id must be a UUID' }),
      impact: impact.optional().meta({ description: "How this service is affected; by default the incident's impact" }),
    }),
    { message: 'affected must be an array of {service_id, impact}' },
  )
  .max(200)
  .refine((list) => new Set(list.map((a) => a.service_id)).size === list.length, 'a service is named once in affected')
  .meta({ description: 'The services affected; a service the page does not list is not named on it' });

export const CreateIncidentInput = z.strictObject({
  title,
  status: status.default('investigating'),
  impact: impact.default('minor'),
  affected: affected.default([]),
  message,
  starts_at: timestamp('starts_at').optional().meta({ description: 'When it began; may be backdated (default: now)' }),
  alert_id: z.uuid({ message: 'alert_id must be a UUID' }).optional().meta({ description: 'The alert it was opened from: that alert is then not shown as an automatic incident besides it' }),
});
export type CreateIncidentInput = z.infer<typeof CreateIncidentInput>;

export const UpdateIncidentInput = z.strictObject({
  ...readOnly('id', 'status_page_id', 'status', 'affected', 'alert_id', 'resolved_at', 'created_at', 'updated_at', 'updates'),
  title: title.optional(),
  impact: impact.optional(),
  starts_at: timestamp('starts_at').optional(),
});
export type UpdateIncidentInput = z.infer<typeof UpdateIncidentInput>;

export const AddUpdateInput = z.strictObject({
  status,
  message,
  affected: affected.optional().meta({ description: 'The affected services from now on; left out, they stay as they were' }),
});
export type AddUpdateInput = z.infer<typeof AddUpdateInput>;

export const EditUpdateInput = z.strictObject({
  ...readOnly('id', 'affected', 'created_at', 'updated_at'),
  status: status.optional(),
  message: message.optional(),
});
export type EditUpdateInput = z.infer<typeof EditUpdateInput>;

export const IncidentListQuery = z.strictObject({
  status: z.enum(['open', 'resolved', 'all'], { message: 'status must be open, resolved or all' }).default('all'),
  limit: z.coerce.number({ message: 'limit must be a number' }).int().min(1).max(200).default(50),
  before: timestamp('before').optional().meta({ description: 'Only incidents that started before this time (paging)' }),
});
export type IncidentListQuery = z.infer<typeof IncidentListQuery>;

export function toUpdateJson(u: IncidentUpdate) {
  return {
    id: u.id,
    status: u.status,
    message: u.message,
    affected: u.affected?.map((a) => ({ service_id: a.serviceId, impact: a.impact })) ?? null,
    created_at: u.createdAt.toISOString(),
    updated_at: u.updatedAt.toISOString(),
  };
}

export function toIncidentJson(i: Incident) {
  return {
    id: i.id,
    status_page_id: i.statusPageId,
    title: i.title,
    status: i.status,
    impact: i.impact,
    affected: i.affected.map((a) => ({ service_id: a.serviceId, service_name: a.serviceName, impact: a.impact })),
    alert_id: i.alertId,
    starts_at: i.startsAt.toISOString(),
    resolved_at: i.resolvedAt?.toISOString() ?? null,
    created_at: i.createdAt.toISOString(),
    updated_at: i.updatedAt.toISOString(),
    updates: i.updates.map(toUpdateJson),
  };
}

export const IncidentUpdateJson = z
  .object({
    id: z.uuid(),
    status: status,
    message: z.string(),
    affected: z.array(z.object({ service_id: z.uuid(), impact: impact })).nullable().meta({ description: 'The affected list this update set; null when it left it as it was' }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'IncidentUpdate' });

export const IncidentJson = z
  .object({
    id: z.uuid(),
    status_page_id: z.uuid(),
    title: z.string(),
    status: status.meta({ description: "The latest update's status" }),
    impact: impact,
    affected: z.array(z.object({ service_id: z.uuid(), service_name: z.string(), impact: impact })),
    alert_id: z.uuid().nullable(),
    starts_at: z.iso.datetime(),
    resolved_at: z.iso.datetime().nullable().meta({ description: 'When the update that resolved it was posted; null while open' }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    updates: z.array(IncidentUpdateJson).meta({ description: 'Oldest first' }),
  })
  .meta({ id: 'Incident' });
