// Registration and login (API.md "Auth"). Knows nothing of HTTP: throws AppError.
import { randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../../errors.js';
import type { AccountsRepository } from './accounts.repository.js';
import { SlugTakenError } from './accounts.repository.js';
import type { RegisterInput, LoginInput } from './auth.schema.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { LoginLimiter } from './login-limiter.js';
import type { PasswordHasher } from './password-hasher.js';
import type { SessionsService, SignInContext } from '../sessions/sessions.service.js';
import type { SsoGate } from '../sso/sso-gate.js';
import type { MfaSignIn } from '../second-factors/mfa-sign-in.js';

export interface AuthServiceDeps {
  accounts: AccountsRepository;
  hasher: PasswordHasher;
  sessions: Pick<SessionsService, 'start'>;
  limiter: LoginLimiter;
  /** Accounts created per client address: each costs a password hash. Absent: no limit. */
  registrations?: RateLimiter;
  /** The plan a registration's organization starts on (DEFAULT_PLAN). */
  defaultPlan: string;
  /** Refuses a password into an organization that requires single sign-on (owners: break-glass, audited). */
  ssoGate?: Pick<SsoGate, 'assertPasswordSignIn'>;
  /** Asks for a second factor (or its set-up) instead of a session when the user or organization needs one. */
  secondFactor?: Pick<MfaSignIn, 'afterFirstFactor'>;
}

const INVALID_CREDENTIALS = 'invalid e-mail or password';
const SLUG_ATTEMPTS = 5;
/**
 * Verifying against a real hash for unknown e-mails keeps the timing of both failures alike.
 * A fixed hash of a random secret, made with the hasher's parameters, instead of hashing at
 * start-up: that hash held 64 MB of memory during every start.
 */
const DUMMY_HASH = '$argon2id$v=19$m=65536,p=4,t=3$IvkeRoOrFsFg3DareG6Dig$1b2fLvGCUNMjwQ2mAlsBPsytwIsXvVqw7MZHVADF8VU';

export function createAuthService({ accounts, hasher, sessions, limiter, registrations, defaultPlan, ssoGate, secondFactor }: AuthServiceDeps) {
  return {
    async register(input: RegisterInput, clientAddress: string) {
      await registrations?.consume(clientAddress, 'too many accounts created from this address; try again later');
      const passwordHash = await hasher.hash(input.password);
      const userId = randomUUID();
      const organizationId = randomUUID();
      for (let attempt = 0; ; attempt++) {
        try {
          await accounts.createAccount({
            userId,
            email: input.email,
            fullName: input.full_name,
            passwordHash,
            organizationId,
            organizationName: input.full_name,
            organizationSlug: slugFor(input.full_name, attempt),
            organizationPlan: defaultPlan,
          });
          return { userId, organizationId };
        } catch (err) {
          if (!(err instanceof SlugTakenError) || attempt + 1 >= SLUG_ATTEMPTS) throw err;
        }
      }
    },

    async login(input: LoginInput, context: SignInContext) {
      const attempt = { email: input.email, address: context.address };
      await limiter.assertAllowed(attempt);
      const user = await accounts.findUserByEmail(input.email);
      const valid = await hasher.verify(user?.passwordHash ?? DUMMY_HASH, input.password);
      if (!user || !valid) {
        await limiter.recordFailure(attempt);
        throw new AppError('UNAUTHENTICATED', INVALID_CREDENTIALS);
      }
      await limiter.recordSuccess(attempt);
      const organizationId = await accounts.primaryOrganizationId(user.id);
      if (!organizationId) throw new AppError('FORBIDDEN', 'this user belongs to no organization');
      await ssoGate?.assertPasswordSignIn(user, organizationId, context.address);
      return (await secondFactor?.afterFirstFactor(user, organizationId, 'password')) ?? sessions.start(user, organizationId, 'password', context);
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

/** "Ada Lovelace" → "ada-lovelace"; later attempts add a random suffix. */
function slugFor(name: string, attempt: number): string {
  const base =
    name
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'org';
  return attempt === 0 ? base : `${base}-${randomBytes(3).toString('hex')}`;
}
