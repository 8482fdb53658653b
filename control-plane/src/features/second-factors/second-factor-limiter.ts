// Limits wrong second factors (and wrong passwords given as proof): per user, whatever the
// address, since whoever tries already holds the password and may come from many places; and
// per address, against one place trying many accounts' tokens. A success clears the user's count.
import type { RateLimit, RateLimiter, RateLimiterFactory } from '../../limits/rate-limiter.js';

export interface FactorAttempt {
  /** Absent when the attempt names no user (an unknown token or passkey). */
  userId?: string;
  address: string;
}

export interface SecondFactorLimiter {
  /** RATE_LIMITED (with Retry-After) when this user or address failed too often. */
  assertAllowed(attempt: FactorAttempt): Promise<void>;
  recordFailure(attempt: FactorAttempt): Promise<void>;
  recordSuccess(attempt: FactorAttempt): Promise<void>;
}

export interface SecondFactorLimits {
  perUser: RateLimit;
  perAddress: RateLimit | undefined;
}

const MESSAGE = 'too many failed second-factor attempts; try again later';

export function createSecondFactorLimiter(limiters: RateLimiterFactory, limits: SecondFactorLimits): SecondFactorLimiter {
  const user = limiters('mfa-user-failures', limits.perUser);
  const address = limits.perAddress && limiters('mfa-address-failures', limits.perAddress);
  const each = (a: FactorAttempt): [RateLimiter, string][] => [
    ...(a.userId ? [[user, a.userId] as [RateLimiter, string]] : []),
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
      if (attempt.userId) await user.reset(attempt.userId);
    },
  };
}
