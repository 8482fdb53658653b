// Requests and answers of invitations: the admins' create and list, and the public preview
// and accept of the invited person.
import { z } from 'zod';
import { idParam } from '../../http/openapi/api-operation.js';
import { EmailAddress } from '../auth/auth.schema.js';
import type { InvitationView } from './invitation.js';

const role = z.enum(['owner', 'admin', 'member', 'viewer'], { message: 'role must be owner, admin, member or viewer' });
const token = z.string({ message: 'token must be a string' }).min(1, 'token must not be empty').max(200, 'token must be at most 200 characters');

export const CreateInvitationInput = z.strictObject({
  email: EmailAddress,
  role: role.default('member'),
});
export type CreateInvitationInput = z.infer<typeof CreateInvitationInput>;

export const InvitationIdParam = idParam('invitation');

export const PreviewQuery = z.strictObject({ token: token.meta({ description: 'The token of the invitation link' }) });

export const AcceptInvitationInput = z.strictObject({
  token,
  password: z.string({ message: 'password must be a string' }).min(1, 'password must not be empty').max(256, 'password must be at most 256 characters')
    .meta({ description: "A new account's password (at least 8 characters), or the existing account's" }),
  full_name: z
    .string({ message: 'full_name must be a string' })
    .trim()
    .min(1, 'full_name must not be empty')
    .max(200, 'full_name must be at most 200 characters')
    .optional()
    .meta({ description: 'Required when no account has the invited e-mail address' }),
});
export type AcceptInvitationInput = z.infer<typeof AcceptInvitationInput>;

export const InvitationJson = z
  .object({
    id: z.uuid(),
    email: z.string(),
    role,
    status: z.enum(['pending', 'accepted', 'revoked', 'expired']),
    invited_by: z.object({ user_id: z.uuid(), email: z.string(), full_name: z.string() }).nullable().meta({ description: 'Null once that user is deleted' }),
    email_sent: z.boolean().meta({ description: 'Whether the invitation mail went out; when not, the link was handed to the inviter' }),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
    accepted_at: z.iso.datetime().nullable(),
    revoked_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Invitation' });

export const CreatedInvitationJson = InvitationJson.extend({
  accept_url: z.string().optional().meta({ description: 'The link to pass on, present only when the mail was not sent' }),
  email_error: z.string().optional().meta({ description: 'Why the mail was not sent' }),
}).meta({ id: 'CreatedInvitation' });

export const InvitationPreviewJson = z
  .object({
    organization_name: z.string(),
    email: z.string(),
    role,
    account_exists: z.boolean().meta({ description: "True: accept with that account's password; false: with a name and a new password" }),
    expires_at: z.iso.datetime(),
  })
  .meta({ id: 'InvitationPreview' });

export function toInvitationJson(i: InvitationView) {
  return {
    id: i.id,
    email: i.email,
    role: i.role,
    status: i.status,
    invited_by: i.invitedBy && { user_id: i.invitedBy.userId, email: i.invitedBy.email, full_name: i.invitedBy.fullName },
    email_sent: i.emailSent,
    created_at: i.createdAt.toISOString(),
    expires_at: i.expiresAt.toISOString(),
    accepted_at: i.acceptedAt?.toISOString() ?? null,
    revoked_at: i.revokedAt?.toISOString() ?? null,
  };
}
