import { z } from 'zod';
import { readOnly } from '../../http/validate.js';

const step = z
  .strictObject({
    delay_minutes: z.number({ message: 'delay_minutes must be a number' }).int('delay_minutes must be an integer').min(0).max(7 * 24 * 60),
    channel_ids: z.array(z.uuid({ message: 'each channel id must be a UUID' })).max(50).default([]),
    // Every member of these teams gets an e-mail.
    team_ids: z.array(z.uuid({ message: 'each team id must be a UUID' })).max(50).default([]),
  })
  .refine((s) => s.channel_ids.length + s.team_ids.length > 0, { message: 'a step notifies at least one channel or team', path: ['channel_ids'] });

const fields = {
  name: z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200),
  steps: z.array(step, { message: 'steps must be an array' }).min(1, 'a policy has at least one step').max(20),
  repeat: z.union([z.boolean(), z.number().int().min(0).max(10)], { message: 'repeat must be true, false or a number of rounds from 0 to 10' }),
};

export const CreatePolicyInput = z.strictObject({ ...fields, repeat: fields.repeat.default(false) });
export type CreatePolicyInput = z.infer<typeof CreatePolicyInput>;

export const UpdatePolicyInput = z.strictObject({
  ...readOnly('id', 'organization_id', 'created_at', 'updated_at'),
  name: fields.name.optional(),
  steps: fields.steps.optional(),
  repeat: fields.repeat.optional(),
});
export type UpdatePolicyInput = z.infer<typeof UpdatePolicyInput>;

export const PolicyJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    steps: z.array(z.object({ delay_minutes: z.int(), channel_ids: z.array(z.uuid()), team_ids: z.array(z.uuid()).optional() })),
    repeat: z.union([z.boolean(), z.int()]),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'EscalationPolicy' });
