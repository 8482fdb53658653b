import { z } from 'zod';
import { readOnly, timestamp } from '../../http/validate.js';
import { ServiceSelectorSchema } from '../services/service-selector.js';
import { stateAt, type Silence } from './silence.js';

const comment = z.string({ message: 'comment must be a string' }).trim().min(1, 'comment must say why').max(1000);
const ordered = (s: { starts_at?: string; ends_at?: string }) => !s.starts_at || !s.ends_at || Date.parse(s.ends_at) > Date.parse(s.starts_at);
const orderMessage = { message: 'ends_at must be after starts_at', path: ['ends_at'] };

export const CreateSilenceInput = z
  .strictObject({
    matchers: ServiceSelectorSchema,
    // Absent: now.
    starts_at: timestamp('starts_at').optional(),
    ends_at: timestamp('ends_at'),
    comment,
  })
  .refine(ordered, orderMessage);
export type CreateSilenceInput = z.infer<typeof CreateSilenceInput>;

export const UpdateSilenceInput = z
  .strictObject({
    ...readOnly('id', 'organization_id', 'state', 'created_by', 'created_at', 'updated_at'),
    matchers: ServiceSelectorSchema.optional(),
    starts_at: timestamp('starts_at').optional(),
    ends_at: timestamp('ends_at').optional(),
    comment: comment.optional(),
  })
  .refine(ordered, orderMessage);
export type UpdateSilenceInput = z.infer<typeof UpdateSilenceInput>;

export const ListSilencesQuery = z.strictObject({
  state: z.enum(['pending', 'active', 'expired', 'current', 'all'], { message: 'state must be pending, active, expired, current or all' }).default('current'),
});
export type ListSilencesQuery = z.infer<typeof ListSilencesQuery>;

export function toSilenceJson(s: Silence, now: Date) {
  return {
    id: s.id,
    organization_id: s.organizationId,
    matchers: s.matchers,
    starts_at: s.startsAt.toISOString(),
    ends_at: s.endsAt.toISOString(),
    comment: s.comment,
    state: stateAt(s, now),
    created_by: s.createdBy,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export const SilenceJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    matchers: z
      .object({
        service_ids: z.array(z.uuid()).optional(),
        tags: z.array(z.string()).optional().meta({ description: 'A service must carry all of them' }),
        environment: z.string().optional(),
        locations: z.array(z.string()).optional().meta({ description: 'A service checked from any of them' }),
        check_types: z.array(z.string()).optional(),
      })
      .meta({ description: 'Every matcher given must hold' }),
    starts_at: z.iso.datetime(),
    ends_at: z.iso.datetime(),
    comment: z.string(),
    state: z.enum(['pending', 'active', 'expired']),
    created_by: z.uuid().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Silence' });
