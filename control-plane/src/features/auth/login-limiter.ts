// Limits failed logins so that they hurt the attacker, not the account's owner: failures are
// counted per client address and account (guessing one password from one place) and per
// address (spraying many accounts from one place). Someone guessing a password from
// elsewhere never locks the owner out, and a success clears that address's count for the
// account. The address is the client's own even behind a proxy (TRUSTED_PROXIES).
import { createHash } from 'node:crypto';
import type { RateLimit, RateLimiter, RateLimiterFactory } from '../../limits/rate-limiter.js';

export interface LoginAttempt {
  email: string;
  address: string;
}

export interface LoginLimiter {
  /** RATE_LIMITED (with Retry-After) when this address failed too often, for this account or overall. */
  assertAllowed(attempt: LoginAttempt): Promise<void>;
  recordFailure(attempt: LoginAttempt): Promise<void>;
  recordSuccess(attempt: LoginAttempt): Promise<void>;
}

export interface LoginLimits {
  perAddressAndAccount: RateLimit | undefined;
  perAddress: RateLimit | undefined;
}

const MESSAGE = 'too many failed login attempts; try again later';

export function createLoginLimiter(limiters: RateLimiterFactory, limits: LoginLimits): LoginLimiter {
  const pair = limits.perAddressAndAccount && limiters('login-failures', limits.perAddressAndAccount);
  const address = limits.perAddress && limiters('login-address-failures', limits.perAddress);
  // The e-mail is kept as a digest: the counters need no one's address in the clear.
  const pairKey = (a: LoginAttempt) => `${a.address}|${createHash('sha256').update(a.email).digest('base64url')}`;
  const each = (a: LoginAttempt): [RateLimiter, string][] => [
    ...(pair ? [[pair, pairKey(a)] as [RateLimiter, string]] : []),
    ...(address ? [[address, a.address] as [RateLimiter, string]] : []),
  ];

  return {
    async assertAllowed(attempt) {
      for (const [limiter, key] of each(attempt)) await limiter.assertAvailable(key, MESSAGE);
    },
    async recordFailure(attempt) {
      for (const [limiter, key] of each(attempt)) await limiter.consume(key, MESSAGE);
    },
    async recordSuccess(attempt) {
      await pair?.reset(pairKey(attempt));
    },
  };
}
