// Password reset by e-mail. Asking answers the same whatever the address: the lookup, the link
// and the mail happen after the answer, and only a known account gets a mail. A link works
// once, for an hour; using it sets the password, ends the user's other links and every session.
import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import { AppError, validationFailed } from '../../errors.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { StoredUser } from '../auth/accounts.repository.js';
import type { PasswordHasher } from '../auth/password-hasher.js';
import { hashLinkToken, newLinkToken } from '../invitations/link-token.js';
import type { SmtpTransport } from '../notifications/senders/smtp-transport.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import type { DetachedWork } from './detached-work.js';
import type { PasswordResetsRepository } from './password-resets.repository.js';
import { resetMail } from './reset-mail.js';

/** How long a reset link works. */
export const RESET_TTL_MS = 3_600_000;

export interface PasswordResetDeps {
  resets: PasswordResetsRepository;
  findUserByEmail(email: string): Promise<StoredUser | null>;
  hasher: PasswordHasher;
  sessions: Pick<SessionsService, 'endAllOfUser'>;
  audit: AuditTrail;
  /** Absent without SMTP settings; `mailMissing` then says which. */
  mailer: SmtpTransport | undefined;
  mailMissing: string;
  publicUrl: string;
  limits: { perAddress: RateLimiter | undefined; perEmail: RateLimiter | undefined };
  detached: DetachedWork;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  clock: Clock;
}

export const REQUEST_ANSWER = 'If an account has this e-mail address, a mail with a link to choose a new password is on its way. The link works once, for one hour.';

const invalidLink = () => new AppError('NOT_FOUND', 'password reset link not found: it may have expired or been used already; ask for a new one');

export function createPasswordResetService(deps: PasswordResetDeps) {
  const { resets, hasher, audit, limits, clock } = deps;

  /** One audit row per organization of the user: each one's admins see what happened to their member. */
  async function recordForEach(tx: Tx, user: { id: string; email: string }, action: string, address: string): Promise<void> {
    const organizations = await resets.organizationsOf(user.id, tx);
    for (const organizationId of organizations.length ? organizations : [null]) {
      await audit.record({ organizationId, actor: { userId: user.id, email: user.email }, address, action, resource: 'user', resourceId: user.id }, tx);
    }
  }

  async function sendLink(mailer: SmtpTransport, email: string, address: string): Promise<void> {
    const user = await deps.findUserByEmail(email);
    if (!user) return;
    const { token, hash } = newLinkToken();
    const now = clock.now();
    await deps.transaction(async (tx) => {
      await resets.insert(tx, { id: randomUUID(), userId: user.id, tokenHash: hash, createdAt: now, expiresAt: new Date(now.getTime() + RESET_TTL_MS) });
      await recordForEach(tx, user, 'password_reset_requested', address);
    });
    await mailer.send({ ...resetMail(`${deps.publicUrl}/reset-password?token=${token}`), to: user.email });
  }

  return {
    /** Limited per client address and per address asked about; answers the same sentence for every address. */
    async request(email: string, address: string): Promise<string> {
      const { mailer } = deps;
      if (!mailer) throw validationFailed(`this server sends no e-mail, so it cannot send a reset link (${deps.mailMissing}): ask an administrator`);
      await limits.perAddress?.consume(address, 'too many password reset requests from your address; try again later');
      // The counters need no one's address in the clear.
      await limits.perEmail?.consume(createHash('sha256').update(email).digest('base64url'), 'too many password reset requests for this e-mail address; try again later');
      deps.detached.start('a password reset mail', () => sendLink(mailer, email, address));
      return REQUEST_ANSWER;
    },

    /** Sets the password of the link's user, uses up every link of theirs and ends all their sessions. */
    async complete(input: { token: string; password: string }, address: string): Promise<void> {
      const hash = hashLinkToken(input.token);
      // Checked before the slow hash, so that made-up links cost no hashing.
      if (!(await resets.isOpen(hash, clock.now()))) throw invalidLink();
      const passwordHash = await hasher.hash(input.password);
      const user = await deps.transaction(async (tx) => {
        const claimed = await resets.claim(tx, hash, clock.now());
        if (!claimed) throw invalidLink();
        await resets.setPassword(tx, claimed.id, passwordHash);
        await recordForEach(tx, claimed, 'password_reset', address);
        return claimed;
      });
      await deps.sessions.endAllOfUser(user.id);
    },
  };
}

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;
