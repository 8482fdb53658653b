// Assembles the password reset for the composition root: the service behind the routes, and
// the mails under way that the control plane waits for when it stops.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../clock.js';
import type { NotificationSettings } from '../../config.js';
import type { Tx } from '../../db/tx.js';
import type { RateLimit, RateLimiterFactory } from '../../limits/rate-limiter.js';
import type { Logger } from '../../logger.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { StoredUser } from '../auth/accounts.repository.js';
import type { PasswordHasher } from '../auth/password-hasher.js';
import { emailNotConfigured } from '../notifications/senders/email.js';
import type { SmtpTransport } from '../notifications/senders/smtp-transport.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import { createDetachedWork } from './detached-work.js';
import { createPasswordResetService, type PasswordResetService } from './password-reset.service.js';
import { createPasswordResetsRepository } from './password-resets.repository.js';

export interface PasswordResetFeatureDeps {
  em: () => EntityManager;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  /** SMTP_* and PUBLIC_URL (the links). */
  notifications: NotificationSettings;
  /** The transport of these settings, shared with the other senders of mail; absent without SMTP. */
  mailer: SmtpTransport | undefined;
  findUserByEmail(email: string): Promise<StoredUser | null>;
  hasher: PasswordHasher;
  sessions: Pick<SessionsService, 'endAllOfUser'>;
  audit: AuditTrail;
  limiters: RateLimiterFactory;
  limits: { perAddress: RateLimit | undefined; perEmail: RateLimit | undefined };
  clock: Clock;
  logger: Logger;
}

export interface PasswordResetFeature {
  service: PasswordResetService;
  /** Waits for the reset mails under way (before the database closes). */
  drain(): Promise<void>;
}

export function createPasswordResetFeature(d: PasswordResetFeatureDeps): PasswordResetFeature {
  const detached = createDetachedWork(d.logger.child({ component: 'password-reset' }));
  return {
    service: createPasswordResetService({
      resets: createPasswordResetsRepository(d.em),
      findUserByEmail: d.findUserByEmail,
      hasher: d.hasher,
      sessions: d.sessions,
      audit: d.audit,
      mailer: d.mailer,
      mailMissing: emailNotConfigured(d.notifications),
      publicUrl: d.notifications.publicUrl,
      limits: {
        perAddress: d.limits.perAddress && d.limiters('password-reset-address', d.limits.perAddress),
        perEmail: d.limits.perEmail && d.limiters('password-reset-email', d.limits.perEmail),
      },
      detached,
      transaction: d.transaction,
      clock: d.clock,
    }),
    drain: () => detached.drain(),
  };
}
