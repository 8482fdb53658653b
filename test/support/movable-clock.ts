import type { Clock } from '../../control-plane/src/clock.js';

/** Real time plus an offset the test moves forward (escalation delays without waiting). */
export class MovableClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
