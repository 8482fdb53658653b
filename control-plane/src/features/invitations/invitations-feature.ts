// Assembles invitations for the composition root: the admins' service and the invited
// person's acceptance, over one repository and the shared SMTP settings.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../clock.js';
import type { NotificationSettings } from '../../config.js';
import type { Tx } from '../../db/tx.js';
import type { Logger } from '../../logger.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { StoredUser } from '../auth/accounts.repository.js';
import type { LoginLimiter } from '../auth/login-limiter.js';
import type { PasswordHasher } from '../auth/password-hasher.js';
import { emailNotConfigured } from '../notifications/senders/email.js';
import type { SmtpTransport } from '../notifications/senders/smtp-transport.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import { createInvitationAcceptance, type InvitationAcceptance, type InvitationAcceptanceDeps } from './invitation-acceptance.js';
import { createInvitationsRepository } from './invitations.repository.js';
import { createInvitationsService, type InvitationsService } from './invitations.service.js';

export interface InvitationsFeatureDeps {
  em: () => EntityManager;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  /** SMTP_* and PUBLIC_URL (the links). */
  notifications: NotificationSettings;
  /** The transport of these settings, shared with the other senders of mail; absent without SMTP. */
  mailer: SmtpTransport | undefined;
  access: OrganizationAccess;
  findUserByEmail(email: string): Promise<StoredUser | null>;
  hasher: PasswordHasher;
  loginLimiter: LoginLimiter;
  sessions: Pick<SessionsService, 'start'>;
  audit: AuditTrail;
  ssoGate: InvitationAcceptanceDeps['ssoGate'];
  secondFactor: InvitationAcceptanceDeps['secondFactor'];
  clock: Clock;
  logger: Logger;
}

export interface InvitationsFeature {
  service: InvitationsService;
  acceptance: InvitationAcceptance;
}

export function createInvitationsFeature(d: InvitationsFeatureDeps): InvitationsFeature {
  const invitations = createInvitationsRepository(d.em);
  return {
    service: createInvitationsService({
      invitations, access: d.access, mailer: d.mailer, mailMissing: emailNotConfigured(d.notifications), publicUrl: d.notifications.publicUrl, clock: d.clock,
      logger: d.logger.child({ component: 'invitations' }),
    }),
    acceptance: createInvitationAcceptance({
      invitations, findUserByEmail: d.findUserByEmail, hasher: d.hasher, limiter: d.loginLimiter, sessions: d.sessions, audit: d.audit, ssoGate: d.ssoGate, secondFactor: d.secondFactor, transaction: d.transaction, clock: d.clock,
    }),
  };
}
