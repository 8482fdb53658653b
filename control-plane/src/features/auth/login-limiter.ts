// Limits failed logins in a sliding window, per e-mail (slows guessing one password) and
// per client address (slows spraying many accounts), without locking out a user who
// mistypes once. A success clears the e-mail's count.
import { AppError } from '../../errors.js';

export interface LoginLimiterOptions {
  windowMs: number;
  maxFailuresPerEmail: number;
  maxFailuresPerAddress: number;
  now?: () => number;
}

export interface LoginAttempt {
  email: string;
  address: string;
}

export interface LoginLimiter {
  /** Throws RATE_LIMITED (with Retry-After) when this e-mail or address failed too often lately. */
  assertAllowed(attempt: LoginAttempt): void;
  recordFailure(attempt: LoginAttempt): void;
  recordSuccess(attempt: LoginAttempt): void;
}

/** Past this many tracked keys the oldest are forgotten, so a flood cannot exhaust memory. */
const MAX_TRACKED_KEYS = 100_000;

export function createLoginLimiter({ windowMs, maxFailuresPerEmail, maxFailuresPerAddress, now = Date.now }: LoginLimiterOptions): LoginLimiter {
  const failures = new Map<string, number[]>();
  const keysOf = (a: LoginAttempt): [string, number][] => [
    [`email:${a.email}`, maxFailuresPerEmail],
    [`address:${a.address}`, maxFailuresPerAddress],
  ];

  const recent = (key: string): number[] => {
    const cutoff = now() - windowMs;
    const kept = (failures.get(key) ?? []).filter((t) => t > cutoff);
    if (kept.length === 0) failures.delete(key);
    else failures.set(key, kept);
    return kept;
  };

  return {
    assertAllowed(attempt) {
      for (const [key, max] of keysOf(attempt)) {
        const times = recent(key);
        if (times.length >= max) {
          const retryAfterMs = (times[times.length - max] ?? now()) + windowMs - now();
          throw new AppError('RATE_LIMITED', 'too many failed login attempts; try again later', {
            retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
          });
        }
      }
    },
    recordFailure(attempt) {
      for (const [key] of keysOf(attempt)) {
        const times = [...recent(key), now()];
        failures.delete(key);
        failures.set(key, times);
      }
      while (failures.size > MAX_TRACKED_KEYS) failures.delete(failures.keys().next().value!);
    },
    recordSuccess(attempt) {
      failures.delete(`email:${attempt.email}`);
    },
  };
}
