// Reconnect delays: exponential growth with full jitter, so a fleet of agents cut off
// together spreads its reconnects over the whole window instead of arriving in waves. The
// cap is low on purpose: an agent must be back within seconds of its control plane (a long
// outage must not leave it sleeping 20 s after the restart), and the jitter still spreads
// a fleet's reconnects over those seconds.
export interface BackoffOptions {
  baseMs?: number;
  maxMs?: number;
  /** Returns a number in [0, 1); injected by tests. */
  random?: () => number;
}

export interface Backoff {
  /** The delay before the next attempt; its ceiling doubles with each call until reset(). */
  next(): number;
  /** Called once the control plane welcomed the agent: the next outage starts small again. */
  reset(): void;
}

export const DEFAULT_MAX_BACKOFF_MS = 3_000;

export function createBackoff({ baseMs = 250, maxMs = DEFAULT_MAX_BACKOFF_MS, random = Math.random }: BackoffOptions = {}): Backoff {
  let attempt = 0;
  return {
    next() {
      // The exponent is clamped so a long outage cannot overflow to Infinity.
      const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
      attempt++;
      return Math.round(random() * ceiling);
    },
    reset() {
      attempt = 0;
    },
  };
}
