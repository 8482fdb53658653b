// Test runs waiting for their answer, by request id: each is answered once, by the one party
// it was sent to (an agent's stream, or the replica holding that stream), or given up when its
// timer fires or that party goes away. An answer for an unknown id, or from anyone else, is
// dropped and leaves the request waiting.
import type { TestRunOutcome } from './test-runs.js';

interface Waiting {
  /** The stream session or replica the request went to: the only one whose answer counts. */
  to: string;
  settle(outcome: TestRunOutcome): void;
}

export interface PendingTestRuns {
  /** Waits for the answer to `requestId` from `to`, at most `timeoutMs`. */
  wait(requestId: string, to: string, timeoutMs: number): Promise<TestRunOutcome>;
  /** Settles `requestId` when it is waiting for `from`; false otherwise (the answer is dropped). */
  answer(requestId: string, from: string, outcome: TestRunOutcome): boolean;
  /** `to` went away: what waits for it is answered with `reason` at once rather than at its timeout. */
  abandon(to: string, reason: string): void;
}

export function createPendingTestRuns(): PendingTestRuns {
  const waiting = new Map<string, Waiting>();

  return {
    wait(requestId, to, timeoutMs) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => settle({ answered: false, reason: `no agent answered within ${Math.round(timeoutMs / 1000)} s` }), timeoutMs);
        const settle = (outcome: TestRunOutcome) => {
          clearTimeout(timer);
          waiting.delete(requestId);
          resolve(outcome);
        };
        waiting.set(requestId, { to, settle });
      });
    },
    answer(requestId, from, outcome) {
      const request = waiting.get(requestId);
      if (request?.to !== from) return false;
      request.settle(outcome);
      return true;
    },
    abandon(to, reason) {
      for (const request of [...waiting.values()]) if (request.to === to) request.settle({ answered: false, reason });
    },
  };
}
