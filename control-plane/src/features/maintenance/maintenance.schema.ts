import { z } from 'zod';
import type { MaintenanceWindow } from './maintenance.repository.js';
import { readOnly, timestamp } from '../../http/validate.js';

const fields = {
  name: z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200),
  starts_at: timestamp('starts_at'),
  ends_at: timestamp('ends_at'),
  // Empty: the window covers every service of the organization.
  service_ids: z.array(z.uuid({ message: 'each service id must be a UUID' })).max(1000).transform((ids) => [...new Set(ids)]),
};
const ordered = (w: { starts_at?: string; ends_at?: string }) => !w.starts_at || !w.ends_at || Date.parse(w.ends_at) > Date.parse(w.starts_at);
const orderMessage = { message: 'ends_at must be after starts_at', path: ['ends_at'] };

export const CreateWindowInput = z.strictObject({ ...fields, service_ids: fields.service_ids.default([]) }).refine(ordered, orderMessage);
export type CreateWindowInput = z.infer<typeof CreateWindowInput>;

export const UpdateWindowInput = z
  .strictObject({
    ...readOnly('id', 'organization_id', 'created_at', 'updated_at', 'active'),
    name: fields.name.optional(),
    starts_at: fields.starts_at.optional(),
    ends_at: fields.ends_at.optional(),
    service_ids: fields.service_ids.optional(),
  })
  .refine(ordered, orderMessage);
export type UpdateWindowInput = z.infer<typeof UpdateWindowInput>;

export function toWindowJson(w: MaintenanceWindow, now: Date) {
  return {
    id: w.id,
    organization_id: w.organizationId,
    name: w.name,
    starts_at: w.startsAt.toISOString(),
    ends_at: w.endsAt.toISOString(),
    service_ids: w.serviceIds,
    active: w.startsAt <= now && now < w.endsAt,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

export const WindowJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    starts_at: z.iso.datetime(),
    ends_at: z.iso.datetime(),
    service_ids: z.array(z.uuid()).meta({ description: 'Empty: every service of the organization' }),
    active: z.boolean(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'MaintenanceWindow' });
