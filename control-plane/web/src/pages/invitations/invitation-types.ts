// Invitations as the API gives and takes them, typed from the control plane's own schemas
// (control-plane/src/features/invitations/invitations.schema.ts); type-only, so nothing of the
// server reaches the bundle.
import type { z } from 'zod';
import type {
  AcceptInvitationInput, CreatedInvitationJson, CreateInvitationInput, InvitationJson, InvitationPreviewJson,
} from '../../../../src/features/invitations/invitations.schema';

export type Invitation = z.infer<typeof InvitationJson>;
export type CreatedInvitation = z.infer<typeof CreatedInvitationJson>;
export type InvitationBody = z.input<typeof CreateInvitationInput>;
export type InvitationPreview = z.infer<typeof InvitationPreviewJson>;
export type AcceptBody = z.input<typeof AcceptInvitationInput>;

export const INVITATIONS_PATH = '/invitations';
