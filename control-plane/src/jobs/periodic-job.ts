// Runs a piece of background work every few seconds, one round at a time. The work itself
// claims rows with SKIP LOCKED, so every replica may run the same job.
import type { Logger } from '../logger.js';

export interface PeriodicJob {
  start(): void;
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function createPeriodicJob(name: string, intervalMs: number, work: () => Promise<number>, logger: Logger): PeriodicJob {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopped = true;
  const runOnce = () => {
    running ??= work()
      .catch((err) => {
        logger.error({ err, job: name }, 'background job round failed');
        return 0;
      })
      .finally(() => (running = undefined));
    return running;
  };
  const tick = () => {
    void runOnce().finally(() => {
      if (!stopped) timer = setTimeout(tick, intervalMs);
    });
  };
  return {
    start() {
      stopped = false;
      timer = setTimeout(tick, intervalMs);
    },
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
