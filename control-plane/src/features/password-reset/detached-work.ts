// Work a request starts but does not wait for (a password reset's lookup and mail, so that the
// answer takes as long for an unknown address as for a known one). Failures are logged; the
// control plane waits for what is under way before it closes the database.
import type { Logger } from '../../logger.js';

export interface DetachedWork {
  start(what: string, work: () => Promise<void>): void;
  /** Resolves once everything started so far has ended. */
  drain(): Promise<void>;
}

export function createDetachedWork(logger: Logger): DetachedWork {
  const running = new Set<Promise<void>>();
  return {
    start(what, work) {
      const task = work()
        .catch((err) => logger.error({ err }, `${what} failed`))
        .finally(() => running.delete(task));
      running.add(task);
    },
    async drain() {
      await Promise.all([...running]);
    },
  };
}
