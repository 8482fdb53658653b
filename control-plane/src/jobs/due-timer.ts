// Runs background work when it falls due instead of on a short poll: after each round the job
// asks when its next piece of work is due and sleeps until then, at most `maxWaitMs` (work
// another replica made, or a clock moved by a test, is found by then). Whoever creates work
// nudges the timer with its due time. One round at a time; the work claims its rows with SKIP
// LOCKED, so every replica may run the same job.
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';

export interface DueTimer {
  start(): void;
  /** Work falls due at `at`: run by then. */
  nudge(at: Date): void;
  /** Runs one round now; answers how much it did. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export interface DueWork {
  /** Does what is due; answers how much it did. */
  run(): Promise<number>;
  /** When the next work is due; null when nothing is waiting. */
  nextDue(): Promise<Date | null>;
}

export function createDueTimer(name: string, work: DueWork, { clock, maxWaitMs, logger }: { clock: Clock; maxWaitMs: number; logger: Logger }): DueTimer {
  let timer: NodeJS.Timeout | undefined;
  /** When the timer fires, in the clock's time. */
  let wakeAt = Infinity;
  let running: Promise<number> | undefined;
  /** The earliest nudge during a round, whose nextDue may not have seen that work yet. */
  let nudged = Infinity;
  let stopped = true;

  const round = async () => {
    const done = await work.run();
    return { done, next: await work.nextDue() };
  };

  function schedule(at: number): void {
    if (stopped) return;
    clearTimeout(timer);
    const now = clock.now().getTime();
    wakeAt = Math.min(at, now + maxWaitMs);
    timer = setTimeout(tick, Math.max(0, wakeAt - now));
    // A job waiting for work keeps no process alive on its own.
    timer.unref();
  }

  function tick(): void {
    wakeAt = Infinity;
    void runOnce();
  }

  function takeNudge(): number {
    const at = nudged;
    nudged = Infinity;
    return at;
  }

  function runOnce(): Promise<number> {
    running ??= round()
      .then(({ done, next }) => {
        running = undefined;
        schedule(Math.min(next ? next.getTime() : Infinity, takeNudge()));
        return done;
      })
      .catch((err) => {
        running = undefined;
        logger.error({ err, job: name }, 'background job round failed');
        schedule(takeNudge());
        return 0;
      });
    return running;
  }

  return {
    start() {
      stopped = false;
      schedule(clock.now().getTime());
    },
    nudge(at) {
      if (stopped) return;
      if (running) nudged = Math.min(nudged, at.getTime());
      else if (at.getTime() < wakeAt) schedule(at.getTime());
    },
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
