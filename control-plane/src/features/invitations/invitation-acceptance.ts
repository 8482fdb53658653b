// The invited person's side: the link's preview, and accepting it. With no account for the
// invited address, accepting registers one (name and password); with an account, it needs
// that account's password. Either way the person joins with the invited role and is signed in,
// in the inviting organization, after the second factor of a person who has one (or whose new
// organization requires one); an organization that requires single sign-on refuses the link's
// password, owner's break-glass aside. Each link works once: the claim, the new user, the membership
// and the audit row are one transaction.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import { AppError, validationFailed } from '../../errors.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { StoredUser } from '../auth/accounts.repository.js';
import type { LoginLimiter } from '../auth/login-limiter.js';
import type { PasswordHasher } from '../auth/password-hasher.js';
import type { MfaChallenge, MfaSignIn } from '../second-factors/mfa-sign-in.js';
import type { SessionsService, SignInContext, StartedSession } from '../sessions/sessions.service.js';
import type { SsoGate } from '../sso/sso-gate.js';
import { statusOf, type Invitation } from './invitation.js';
import type { InvitationsRepository } from './invitations.repository.js';
import type { AcceptInvitationInput } from './invitations.schema.js';
import { hashLinkToken } from './link-token.js';

export interface InvitationAcceptanceDeps {
  invitations: InvitationsRepository;
  findUserByEmail(email: string): Promise<StoredUser | null>;
  hasher: PasswordHasher;
  /** Wrong passwords of existing accounts count as failed logins. */
  limiter: LoginLimiter;
  sessions: Pick<SessionsService, 'start'>;
  audit: AuditTrail;
  /** An organization that requires single sign-on takes its people from its provider, not by password. */
  ssoGate: Pick<SsoGate, 'assertPasswordSignIn'>;
  /** A person with a second factor, or joining an organization that requires one, is asked for it before the session. */
  secondFactor: Pick<MfaSignIn, 'afterFirstFactor'>;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  clock: Clock;
}

export interface InvitationPreview {
  organizationName: string;
  email: string;
  role: Invitation['role'];
  accountExists: boolean;
  expiresAt: Date;
}

// One answer for unknown, used, revoked and expired links: none says which.
const invalidLink = () => new AppError('NOT_FOUND', 'invitation not found: the link may have expired, been revoked or been used already');
const NEW_PASSWORD_MIN = 8;

export function createInvitationAcceptance(deps: InvitationAcceptanceDeps) {
  const { invitations, hasher, limiter, clock } = deps;

  async function pending(token: string): Promise<Invitation> {
    const invitation = await invitations.findByTokenHash(hashLinkToken(token));
    if (!invitation || statusOf(invitation, clock.now()) !== 'pending') throw invalidLink();
    return invitation;
  }

  /** The new account's id and password hash, after checking what registering needs. */
  async function newAccount(input: AcceptInvitationInput) {
    if (!input.full_name) throw validationFailed('full_name is required to create your account', [{ path: 'full_name', message: 'is required' }]);
    if (input.password.length < NEW_PASSWORD_MIN) {
      throw validationFailed(`password must be at least ${NEW_PASSWORD_MIN} characters`, [{ path: 'password', message: `must be at least ${NEW_PASSWORD_MIN} characters` }]);
    }
    return { id: randomUUID(), fullName: input.full_name, passwordHash: await hasher.hash(input.password) };
  }

  /** A sign-in (or a failed one) by accepting, in the inviting organization's log, like a login's. */
  const recordSignIn = (invitation: Invitation, user: { id: string; email: string }, address: string, sessionId: string | null) =>
    deps.audit.record({
      organizationId: invitation.organizationId,
      actor: { userId: user.id, email: user.email },
      address,
      action: sessionId ? 'sign_in' : 'sign_in_failed',
      resource: 'session',
      resourceId: sessionId,
      after: { method: 'invitation' },
    });

  async function verifyPassword(invitation: Invitation, user: StoredUser, password: string, address: string): Promise<void> {
    const attempt = { email: user.email, address };
    await limiter.assertAllowed(attempt);
    if (!(await hasher.verify(user.passwordHash, password))) {
      await limiter.recordFailure(attempt);
      await recordSignIn(invitation, user, address, null);
      throw new AppError('UNAUTHENTICATED', `wrong password for the account of ${user.email}`);
    }
    await limiter.recordSuccess(attempt);
  }

  return {
    async preview(token: string): Promise<InvitationPreview> {
      const invitation = await pending(token);
      return {
        organizationName: invitation.organizationName,
        email: invitation.email,
        role: invitation.role,
        accountExists: (await deps.findUserByEmail(invitation.email)) !== null,
        expiresAt: invitation.expiresAt,
      };
    },

    /** The session in the inviting organization, or the second factor it needs first. */
    async accept(input: AcceptInvitationInput, context: SignInContext): Promise<StartedSession | MfaChallenge> {
      const invitation = await pending(input.token);
      const existing = await deps.findUserByEmail(invitation.email);
      if (existing) await verifyPassword(invitation, existing, input.password, context.address);
      const created = existing ? undefined : await newAccount(input);
      const user = { id: existing?.id ?? created!.id, email: invitation.email };
      await deps.ssoGate.assertPasswordSignIn(user, invitation.organizationId, context.address);

      await deps.transaction(async (tx) => {
        if (created) await invitations.createUser(tx, { id: created.id, email: user.email, fullName: created.fullName, passwordHash: created.passwordHash });
        if (!(await invitations.claim(tx, invitation.id, user.id, clock.now()))) throw invalidLink();
        await invitations.addMember(tx, invitation.organizationId, user.id, invitation.role);
        await deps.audit.record(
          {
            organizationId: invitation.organizationId,
            actor: { userId: user.id, email: user.email },
            address: context.address,
            action: 'accept',
            resource: 'invitation',
            resourceId: invitation.id,
            after: { email: user.email, role: invitation.role, user_id: user.id, account_created: created !== undefined },
          },
          tx,
        );
      });
      const challenge = await deps.secondFactor.afterFirstFactor(user, invitation.organizationId, 'invitation');
      if (challenge) return challenge;
      const started = await deps.sessions.start(user, invitation.organizationId, 'invitation', context);
      await recordSignIn(invitation, user, context.address, started.sessionId);
      return started;
    },
  };
}

export type InvitationAcceptance = ReturnType<typeof createInvitationAcceptance>;
