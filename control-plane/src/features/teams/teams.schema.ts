import { z } from 'zod';
import type { Team } from './teams.repository.js';
import { readOnly } from '../../http/validate.js';

const fields = {
  name: z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(100, 'name must be at most 100 characters'),
  // Members of the organization, by user id; repeats are dropped.
  member_ids: z
    .array(z.uuid({ message: 'each member id must be a user id (UUID)' }), { message: 'member_ids must be an array of user ids' })
    .max(500, 'a team has at most 500 members')
    .transform((ids) => [...new Set(ids)]),
};

export const CreateTeamInput = z.strictObject({ name: fields.name, member_ids: fields.member_ids.default([]) });
export type CreateTeamInput = z.infer<typeof CreateTeamInput>;

export const UpdateTeamInput = z.strictObject({
  // Read-only fields a client may echo back.
  ...readOnly('id', 'organization_id', 'members', 'created_at', 'updated_at'),
  name: fields.name.optional(),
  member_ids: fields.member_ids.optional(),
});
export type UpdateTeamInput = z.infer<typeof UpdateTeamInput>;

export function toTeamJson(t: Team) {
  return {
    id: t.id,
    organization_id: t.organizationId,
    name: t.name,
    member_ids: t.members.map((m) => m.userId),
    members: t.members.map((m) => ({ user_id: m.userId, email: m.email, full_name: m.fullName })),
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

export const TeamJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    member_ids: z.array(z.uuid()),
    members: z.array(z.object({ user_id: z.uuid(), email: z.string(), full_name: z.string() })),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Team' });
