// An invitation to join an organization with a role, and the state it is in at an instant.
import type { Role } from '../organizations/membership.entity.js';

/** How long an invitation's link works. */
export const INVITATION_TTL_MS = 7 * 86_400_000;

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

export interface Invitation {
  id: string;
  organizationId: string;
  organizationName: string;
  email: string;
  role: Role;
  invitedBy: { userId: string; email: string; fullName: string } | null;
  emailSent: boolean;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
}

export function statusOf(invitation: Invitation, now: Date): InvitationStatus {
  if (invitation.acceptedAt) return 'accepted';
  if (invitation.revokedAt) return 'revoked';
  return invitation.expiresAt <= now ? 'expired' : 'pending';
}

/** An invitation with its state when it was read. */
export interface InvitationView extends Invitation {
  status: InvitationStatus;
}
