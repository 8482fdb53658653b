// Sign-in with a second factor. After the password, a user with a factor (or whose
// organization requires one) gets an mfa_token instead of a session: random, stored as sha256,
// valid five minutes, good for one success and a few failures. The second call brings the token
// and a factor and gets the session a password sign-in gets. A passkey may also sign in alone.
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { SessionsService, SignInContext, StartedSession } from '../sessions/sessions.service.js';
import type { SignInMethod } from '../sessions/sign-in-method.js';
import type { SsoGate } from '../sso/sso-gate.js';
import { auditWho } from './audit-who.js';
import type { FactorsRepository, FactorSummary } from './factors.repository.js';
import type { OrganizationSecurityRepository } from './organization-security.repository.js';
import type { RelyingParty } from './relying-party.js';
import type { SecondFactorLimiter } from './second-factor-limiter.js';
import type { CompleteMfaInput, MfaMethod, PasskeyAssertion } from './second-factors.schema.js';
import type { MfaTokenRow, SignInStepsRepository, SignInUser } from './sign-in-steps.repository.js';
import type { TotpFactor } from './totp-factor.js';
import type { WebAuthnCeremonies } from './webauthn-ceremonies.js';

export const MFA_TOKEN_LIFETIME_MS = 5 * 60_000;
/** Wrong factors one token takes before it is gone (the user limit spans tokens). */
export const MFA_TOKEN_ATTEMPTS = 5;
const TOKEN_PREFIX = 'mfa_';

export interface MfaChallenge {
  mfaToken: string;
  methods: MfaMethod[];
  enrollmentRequired: boolean;
}

export interface MfaSignInDeps {
  factors: FactorsRepository;
  steps: SignInStepsRepository;
  policy: Pick<OrganizationSecurityRepository, 'requiresMfa'>;
  totp: TotpFactor;
  ceremonies: WebAuthnCeremonies;
  sessions: Pick<SessionsService, 'start'>;
  limiter: SecondFactorLimiter;
  /** Per address, for password-less options: each stores a challenge. */
  challenges: RateLimiter | undefined;
  audit: AuditTrail;
  /** A passkey alone is no SSO sign-in: an organization that requires SSO refuses it as it refuses a password. */
  ssoGate: Pick<SsoGate, 'assertPasswordSignIn'> | undefined;
  clock: Clock;
}

type SecondFactor = 'totp' | 'recovery_code' | 'passkey';

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

function methodsOf(s: FactorSummary): MfaMethod[] {
  return [...(s.totp ? (['totp'] as const) : []), ...(s.totp && s.recoveryCodesLeft > 0 ? (['recovery_code'] as const) : []), ...(s.passkeys > 0 ? (['passkey'] as const) : [])];
}

export function createMfaSignIn(d: MfaSignInDeps) {
  const { steps, clock } = d;
  const expired = () => new AppError('UNAUTHENTICATED', 'the mfa_token is invalid, used or expired; sign in again');

  const pendingOf = async (mfaToken: string, address: string): Promise<MfaTokenRow & { hash: string }> => {
    const hash = digest(mfaToken);
    const pending = mfaToken.startsWith(TOKEN_PREFIX) ? await steps.findMfaToken(hash, clock.now()) : null;
    await d.limiter.assertAllowed({ userId: pending?.userId, address });
    if (!pending) {
      await d.limiter.recordFailure({ address });
      throw expired();
    }
    return { ...pending, hash };
  };
  const userOf = async (userId: string) => {
    const user = await steps.signInUser(userId);
    if (!user) throw expired();
    return user;
  };
  /** A wrong factor: counted on the token, the user and the address, and recorded. */
  const refuse = async (pending: MfaTokenRow & { hash: string }, factor: SecondFactor, address: string): Promise<never> => {
    const count = await steps.failMfaToken(pending.hash, MFA_TOKEN_ATTEMPTS);
    await d.audit.record({
      ...auditWho({ id: pending.userId }, pending.organizationId, address),
      action: 'sign_in_failed', resource: 'session', resourceId: null, after: { method: 'password', second_factor: factor },
    });
    await d.limiter.recordFailure({ userId: pending.userId, address });
    const what = factor === 'passkey' ? 'the passkey could not be verified' : 'the code is wrong';
    throw new AppError('UNAUTHENTICATED', count >= MFA_TOKEN_ATTEMPTS ? `${what}, and this mfa_token is used up; sign in again` : what);
  };
  /** Starts the session and records the sign-in (the password step recorded none); no factor: a passkey alone. */
  const begin = async (user: SignInUser, organizationId: string, factor: SecondFactor | null, context: SignInContext): Promise<StartedSession> => {
    const method = factor ? 'password' : 'passkey';
    const session = await d.sessions.start(user, organizationId, method, context);
    const after = factor ? { method, second_factor: factor } : { method };
    await d.audit.record({ ...auditWho(user, organizationId, context.address), action: 'sign_in', resource: 'session', resourceId: session.sessionId, after });
    return session;
  };
  /** Takes the token and starts the session. */
  const finish = async (pending: MfaTokenRow & { hash: string }, factor: SecondFactor, context: SignInContext): Promise<StartedSession> => {
    if (!(await steps.takeMfaToken(pending.hash))) throw expired();
    await d.limiter.recordSuccess({ userId: pending.userId, address: context.address });
    return begin(await userOf(pending.userId), pending.organizationId, factor, context);
  };
  const factorHolds = async (userId: string, input: CompleteMfaInput): Promise<boolean> => {
    if (input.code !== undefined) return d.totp.verify(userId, input.code);
    if (input.recovery_code !== undefined) return d.totp.useRecoveryCode(userId, input.recovery_code);
    try {
      await d.ceremonies.verifyAssertion('second_factor', input.passkey!, userId);
      return true;
    } catch (err) {
      if (err instanceof AppError && err.code === 'UNAUTHENTICATED') return false;
      throw err;
    }
  };
  const enrolling = async (mfaToken: string, address: string) => {
    const pending = await pendingOf(mfaToken, address);
    if (!pending.enrollmentRequired) throw new AppError('FORBIDDEN', 'you have a second factor already: complete the sign-in with it (POST /auth/login/mfa)');
    return pending;
  };

  return {
    /**
     * After a first factor: null when the sign-in may go on to a session, else the challenge to
     * answer. SSO sign-ins pass (the identity provider had its own factors).
     */
    /**
     * A session entering another organization (switching, refreshing into it): one that requires
     * a second factor admits only a user who has one (a session of theirs passed it) or whose
     * session its identity provider started.
     */
    async assertMayEnter(actor: { userId: string; signInMethod?: SignInMethod }, organizationId: string): Promise<void> {
      if (actor.signInMethod === 'sso' || !(await d.policy.requiresMfa(organizationId))) return;
      if (methodsOf(await d.factors.summary(actor.userId)).length > 0) return;
      throw new AppError('FORBIDDEN', 'this organization requires a second factor: set one up on your Security page, then sign in again');
    },

    async afterFirstFactor(user: { id: string }, organizationId: string, method: SignInMethod): Promise<MfaChallenge | null> {
      if (method === 'sso') return null;
      const methods = methodsOf(await d.factors.summary(user.id));
      if (methods.length === 0 && !(await d.policy.requiresMfa(organizationId))) return null;
      const mfaToken = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
      const now = clock.now();
      const enrollmentRequired = methods.length === 0;
      await steps.insertMfaToken(digest(mfaToken), { userId: user.id, organizationId, enrollmentRequired }, new Date(now.getTime() + MFA_TOKEN_LIFETIME_MS), now);
      return { mfaToken, methods, enrollmentRequired };
    },

    async complete(input: CompleteMfaInput, context: SignInContext): Promise<StartedSession> {
      const pending = await pendingOf(input.mfa_token, context.address);
      if (pending.enrollmentRequired) throw new AppError('FORBIDDEN', 'your organization requires a second factor: set up TOTP with this mfa_token first (POST /auth/login/mfa/totp)');
      const factor: SecondFactor = input.code !== undefined ? 'totp' : input.recovery_code !== undefined ? 'recovery_code' : 'passkey';
      if (!(await factorHolds(pending.userId, input))) await refuse(pending, factor, context.address);
      return finish(pending, factor, context);
    },

    /** Options to sign a second-factor assertion with one of the token's user's passkeys. */
    async passkeyOptions(mfaToken: string, rp: RelyingParty, address: string) {
      const pending = await pendingOf(mfaToken, address);
      return d.ceremonies.assertionOptions('second_factor', rp, pending.userId);
    },

    async startEnrolment(mfaToken: string, address: string) {
      const pending = await enrolling(mfaToken, address);
      const user = await userOf(pending.userId);
      return d.totp.start(user, auditWho(user, pending.organizationId, address));
    },

    /** Enables TOTP and signs in: the session and the recovery codes. */
    async confirmEnrolment(mfaToken: string, code: string, context: SignInContext): Promise<{ session: StartedSession; recoveryCodes: string[] }> {
      const pending = await enrolling(mfaToken, context.address);
      const user = await userOf(pending.userId);
      const recoveryCodes = await d.totp.confirm(user.id, code, auditWho(user, pending.organizationId, context.address));
      if (!recoveryCodes) return refuse(pending, 'totp', context.address);
      return { session: await finish(pending, 'totp', context), recoveryCodes };
    },

    /** Options for signing in with a passkey alone (any of the browser's passkeys for this site). */
    async passkeySignInOptions(rp: RelyingParty, address: string) {
      await d.challenges?.consume(address, 'too many passkey sign-ins started from this address; try again later');
      return d.ceremonies.assertionOptions('sign_in', rp);
    },

    async passkeySignIn(answer: PasskeyAssertion, context: SignInContext): Promise<StartedSession> {
      const attempt = { address: context.address };
      await d.limiter.assertAllowed(attempt);
      let userId: string;
      try {
        userId = (await d.ceremonies.verifyAssertion('sign_in', answer)).userId;
      } catch (err) {
        if (err instanceof AppError && err.code === 'UNAUTHENTICATED') {
          await d.audit.record({ organizationId: null, actor: {}, address: context.address, action: 'sign_in_failed', resource: 'session', resourceId: null, after: { method: 'passkey' } });
          await d.limiter.recordFailure(attempt);
        }
        throw err;
      }
      const user = await userOf(userId);
      if (!user.organizationId) throw new AppError('FORBIDDEN', 'this user belongs to no organization');
      await d.ssoGate?.assertPasswordSignIn(user, user.organizationId, context.address);
      return begin(user, user.organizationId, null, context);
    },
  };
}

export type MfaSignIn = ReturnType<typeof createMfaSignIn>;
