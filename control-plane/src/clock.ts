/** The time, behind a seam so tests can move it (escalation delays, retries). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
