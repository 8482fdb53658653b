// Organization secret requests and answers. An answer never carries the value.
import { z } from 'zod';
import { readOnly } from '../../http/validate.js';
import type { OrgSecretView } from './org-secrets.service.js';
import { SECRET_NAME } from './secret-references.js';

const MAX_VALUE_LENGTH = 8192;

const value = z
  .string({ message: 'value must be a string' })
  .min(1, 'value must not be empty')
  .max(MAX_VALUE_LENGTH, `value must be at most ${MAX_VALUE_LENGTH} characters`)
  .meta({ description: 'Stored encrypted; never answered. Services use it as {{secrets.NAME}} in any string of their options.', writeOnly: true });

export const CreateSecretInput = z.strictObject({
  name: z
    .string({ message: 'name must be a string' })
    .regex(SECRET_NAME, 'name must be letters, digits and _, not starting with a digit, at most 64 characters')
    .meta({ description: 'Unique in the organization, case-sensitive; cannot change later', example: 'API_TOKEN' }),
  value,
});
export type CreateSecretInput = z.infer<typeof CreateSecretInput>;

export const UpdateSecretInput = z.strictObject({
  ...readOnly('id', 'organization_id', 'created_at', 'updated_at', 'used_by'),
  // Accepted when it is the current name, so that a read object can be sent back.
  name: z.string({ message: 'name must be a string' }).optional().meta({ description: 'The current name; a secret cannot be renamed' }),
  value: value.optional(),
});
export type UpdateSecretInput = z.infer<typeof UpdateSecretInput>;

export function toSecretJson(s: OrgSecretView) {
  return {
    id: s.id,
    organization_id: s.organizationId,
    name: s.name,
    used_by: s.usedBy,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export const SecretJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    used_by: z.array(z.object({ id: z.uuid(), name: z.string() })).meta({ description: 'The services whose options refer to it' }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime().meta({ description: 'When the value last changed' }),
  })
  .meta({ id: 'Secret' });
