import type { Clock } from '../../control-plane/src/clock.js';

/**
 * Real time plus an offset the test moves (escalation delays without waiting), or sets so
 * that now is a given instant (a DST change) from which time goes on running.
 */
export class MovableClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  set(at: Date | string): void {
    this.offsetMs = new Date(at).getTime() - Date.now();
  }
}
