// Reconnect delays: exponential growth with jitter, so a fleet of agents cut off together
// does not reconnect together.
export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
  random?: () => number;
}

export interface Backoff {
  /** The delay before the next attempt; grows with each call until reset(). */
  next(): number;
  reset(): void;
}

export function createBackoff({ baseMs = 250, maxMs = 30_000, random = Math.random }: BackoffOptions = {}): Backoff {
  let attempt = 0;
  return {
    next() {
      const cap = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
      attempt++;
      // "Equal jitter": never below half the cap, so retries cannot collapse to zero.
      return Math.round(cap / 2 + random() * (cap / 2));
    },
    reset() {
      attempt = 0;
    },
  };
}
