// Admins invite people by e-mail with a role up to their own, list the invitations and revoke
// them. The link goes out by mail; when it cannot (no SMTP settings, a refused message) the
// invitation still stands and the inviter is handed the link to pass on.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { AppError, notFound } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Actor } from '../auth/actor.js';
import type { SmtpTransport } from '../notifications/senders/smtp-transport.js';
import { ROLE_RANK, type OrganizationAccess } from '../organizations/organization-access.js';
import { INVITATION_TTL_MS, statusOf, type Invitation, type InvitationView } from './invitation.js';
import { invitationMail } from './invitation-mail.js';
import type { InvitationsRepository } from './invitations.repository.js';
import type { CreateInvitationInput } from './invitations.schema.js';
import { newLinkToken } from './link-token.js';

export interface InvitationsDeps {
  invitations: InvitationsRepository;
  access: OrganizationAccess;
  /** Absent without SMTP settings; `mailMissing` then says which. */
  mailer: SmtpTransport | undefined;
  mailMissing: string;
  /** The dashboard's address, where the links point. */
  publicUrl: string;
  clock: Clock;
  logger: Logger;
}

export interface CreatedInvitation {
  invitation: InvitationView;
  /** Set when the mail did not go out: the link for the inviter to pass on. */
  acceptUrl?: string;
  emailError?: string;
}

export function createInvitationsService({ invitations, access, mailer, mailMissing, publicUrl, clock, logger }: InvitationsDeps) {
  const view = (invitation: Invitation): InvitationView => ({ ...invitation, status: statusOf(invitation, clock.now()) });
  const found = async (organizationId: string, id: string) => {
    const invitation = await invitations.find(organizationId, id);
    if (!invitation) throw notFound('invitation');
    return invitation;
  };

  async function send(invitation: Invitation, acceptUrl: string): Promise<string | undefined> {
    if (!mailer) return mailMissing;
    try {
      await mailer.send({ ...invitationMail(invitation, acceptUrl), to: invitation.email });
      await invitations.markSent(invitation.id);
      return undefined;
    } catch (err) {
      logger.warn({ err, invitationId: invitation.id }, 'the invitation mail could not be sent');
      return `SMTP: ${(err as Error).message}`;
    }
  }

  return {
    /** Invites `email` with `role`, replacing an open invitation of the same address. */
    async create(actor: Actor, input: CreateInvitationInput): Promise<CreatedInvitation> {
      const organizationId = await access.resolveManaging(actor);
      const actorRole = await access.roleIn(actor, organizationId);
      if (ROLE_RANK[input.role] > ROLE_RANK[actorRole]) throw new AppError('FORBIDDEN', `a ${actorRole} cannot invite with the ${input.role} role`);
      if (await invitations.isMember(organizationId, input.email)) throw new AppError('CONFLICT', `${input.email} is a member of this organization already`);

      const { token, hash } = newLinkToken();
      const id = randomUUID();
      const now = clock.now();
      await invitations.replaceOpen({
        id, organizationId, email: input.email, role: input.role, tokenHash: hash, invitedBy: actor.userId, createdAt: now, expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      });
      const acceptUrl = `${publicUrl}/accept-invitation?token=${token}`;
      const emailError = await send(await found(organizationId, id), acceptUrl);
      const invitation = view(await found(organizationId, id));
      return emailError === undefined ? { invitation } : { invitation, acceptUrl, emailError };
    },

    async list(actor: Actor): Promise<InvitationView[]> {
      return (await invitations.list(await access.resolveManaging(actor))).map(view);
    },

    /** Revokes a pending or expired invitation (again: nothing happens) of a role up to the actor's; an accepted one is a CONFLICT. */
    async revoke(actor: Actor, id: string): Promise<void> {
      const organizationId = await access.resolveManaging(actor);
      const invitation = await found(organizationId, id);
      const actorRole = await access.roleIn(actor, organizationId);
      if (ROLE_RANK[invitation.role] > ROLE_RANK[actorRole]) throw new AppError('FORBIDDEN', `a ${actorRole} cannot revoke an invitation with the ${invitation.role} role`);
      if (statusOf(invitation, clock.now()) === 'accepted') throw new AppError('CONFLICT', 'this invitation was accepted already: remove the member instead');
      await invitations.revoke(organizationId, id, clock.now());
    },
  };
}

export type InvitationsService = ReturnType<typeof createInvitationsService>;
