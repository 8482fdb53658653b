// Limits failed logins per e-mail and per client address in a sliding window, so password
// guessing is slow without locking out a user who types one wrong password.
import { AppError } from '../../errors.js';

export interface LoginLimiterOptions {
  maxFailures: number;
  windowMs: number;
  now?: () => number;
}

export interface LoginLimiter {
  /** Throws RATE_LIMITED (with Retry-After) when `keys` have failed too often lately. */
  assertAllowed(keys: string[]): void;
  recordFailure(keys: string[]): void;
  recordSuccess(keys: string[]): void;
}

export function createLoginLimiter({ maxFailures, windowMs, now = Date.now }: LoginLimiterOptions): LoginLimiter {
  const failures = new Map<string, number[]>();

  const recent = (key: string): number[] => {
    const cutoff = now() - windowMs;
    const kept = (failures.get(key) ?? []).filter((t) => t > cutoff);
    if (kept.length === 0) failures.delete(key);
    else failures.set(key, kept);
    return kept;
  };

  return {
    assertAllowed(keys) {
      for (const key of keys) {
        const times = recent(key);
        if (times.length >= maxFailures) {
          const retryAfterMs = (times[0] ?? now()) + windowMs - now();
          throw new AppError('RATE_LIMITED', 'too many failed login attempts; try again later', {
            retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
          });
        }
      }
    },
    recordFailure(keys) {
      for (const key of keys) failures.set(key, [...recent(key), now()]);
    },
    recordSuccess(keys) {
      for (const key of keys) failures.delete(key);
    },
  };
}
