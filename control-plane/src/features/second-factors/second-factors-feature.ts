// Assembles second factors for the composition root: the Security page's service, the sign-in
// steps (which auth's login asks after a password), the organization's rule, and the relying
// party passkeys belong to.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../clock.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Tx } from '../../db/tx.js';
import { schemeOf } from '../../http/client-address.js';
import type { RateLimit, RateLimiterFactory } from '../../limits/rate-limiter.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { PasswordHasher } from '../auth/password-hasher.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { SessionsService } from '../sessions/sessions.service.js';
import type { SsoGate } from '../sso/sso-gate.js';
import { createFactorProof } from './factor-proof.js';
import { createFactorsRepository } from './factors.repository.js';
import { createMfaSignIn, type MfaSignIn } from './mfa-sign-in.js';
import { createOrganizationSecurityRepository } from './organization-security.repository.js';
import { createOrganizationSecurityService, type OrganizationSecurityService } from './organization-security.service.js';
import { relyingPartyFor } from './relying-party.js';
import { createSecondFactorLimiter } from './second-factor-limiter.js';
import type { RelyingPartyOf } from './second-factors.routes.js';
import { createSecondFactorsService, type SecondFactorsService } from './second-factors.service.js';
import { createSignInStepsRepository } from './sign-in-steps.repository.js';
import { createTotpFactor } from './totp-factor.js';
import { createWebAuthnCeremonies } from './webauthn-ceremonies.js';

/** Wrong second factors of one user, from anywhere, per window. */
const FAILURES_PER_USER: RateLimit = { points: 10, windowSeconds: 900 };
/** Password-less sign-ins started from one address, per window (each stores a challenge). */
const PASSKEY_SIGN_INS_PER_ADDRESS: RateLimit = { points: 60, windowSeconds: 60 };

export interface SecondFactorsFeatureDeps {
  em: () => EntityManager;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  box: SecretBox;
  hasher: PasswordHasher;
  passwordHash(userId: string): Promise<string | null>;
  sessions: Pick<SessionsService, 'start'>;
  ssoGate: Pick<SsoGate, 'assertPasswordSignIn'> | undefined;
  access: OrganizationAccess;
  audit: AuditTrail;
  limiters: RateLimiterFactory;
  /** Wrong factors per address, whatever the user (LOGIN_ADDRESS_FAILURE_LIMIT). */
  failuresPerAddress: RateLimit | undefined;
  /** PUBLIC_URL when set: passkeys then belong to its host, else to the host each request came to. */
  publicUrl: string | undefined;
  clock: Clock;
}

export interface SecondFactorsFeature {
  service: SecondFactorsService;
  signIn: MfaSignIn;
  organizationSecurity: OrganizationSecurityService;
  relyingPartyOf: RelyingPartyOf;
}

export function createSecondFactorsFeature(d: SecondFactorsFeatureDeps): SecondFactorsFeature {
  const factors = createFactorsRepository(d.em);
  const steps = createSignInStepsRepository(d.em);
  const policy = createOrganizationSecurityRepository(d.em);
  const totp = createTotpFactor({ factors, box: d.box, transaction: d.transaction, audit: d.audit, clock: d.clock });
  const ceremonies = createWebAuthnCeremonies(factors, steps, d.clock);
  const limiter = createSecondFactorLimiter(d.limiters, { perUser: FAILURES_PER_USER, perAddress: d.failuresPerAddress });
  const prove = createFactorProof({ passwordHash: d.passwordHash, hasher: d.hasher, totp, ceremonies, limiter, audit: d.audit });
  return {
    service: createSecondFactorsService({ factors, totp, ceremonies, prove, transaction: d.transaction, audit: d.audit }),
    signIn: createMfaSignIn({
      factors, steps, policy, totp, ceremonies, sessions: d.sessions, limiter,
      challenges: d.limiters('passkey-sign-ins', PASSKEY_SIGN_INS_PER_ADDRESS), audit: d.audit, ssoGate: d.ssoGate, clock: d.clock,
    }),
    organizationSecurity: createOrganizationSecurityService(policy, d.access, d.audit),
    relyingPartyOf: (ctx) => relyingPartyFor(d.publicUrl, ctx.get('origin') || `${schemeOf(ctx)}://${ctx.host}`),
  };
}
