// Test runs (the control plane's POST /services/test): a check run once, at once, outside the
// schedule and the spool, its result sent straight back on the stream under the request's id.
// Nobody waits for it after a reconnect, so it is never kept. Whatever the assignment holds,
// the answer is a result (a failed one for a check this agent cannot run), never an exception
// on the stream's path.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AgentMessage, TestRun } from '../../../shared/src/gen/agent.js';
import type { ProbeResult, ProbeTarget } from '../probers/prober.js';
import type { ProberRegistry } from '../probers/registry.js';
import { assignmentFromWire, probeTarget, runStatus } from '../scheduler/assignments.js';

/**
 * Test runs at once at most. They do not take places of the scheduler's concurrency limit (its
 * semaphore is its own), so they have a small limit of their own: a person waits for each.
 */
export const MAX_TEST_RUNS = 16;

export interface TestRunnerOptions {
  registry: ProberRegistry;
  /** Writes on the stream; false when it is down, and then the control plane no longer waits. */
  send(message: AgentMessage): boolean;
  logger: Logger;
  maxRunning?: number;
}

/** Runs each test run it is handed and sends its result; never throws. */
export type TestRunner = (run: TestRun) => void;

export function createTestRunner({ registry, send, logger, maxRunning = MAX_TEST_RUNS }: TestRunnerOptions): TestRunner {
  let running = 0;

  async function probe(target: ProbeTarget | string): Promise<ProbeResult> {
    if (typeof target === 'string') return failed(target);
    if (running >= maxRunning) return failed(`the agent is already running ${maxRunning} test checks; try again shortly`);
    running++;
    try {
      return await registry.run(target);
    } catch (err) {
      return failed(`prober error: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      running--;
    }
  }

  return ({ requestId, assignment: wire }) => {
    // Without an id there is no one to answer.
    if (!requestId) return;
    const assignment = wire && assignmentFromWire(wire);
    const target = assignment ? (probeTarget(assignment) ?? `check type ${assignment.checkType} is not supported by this agent version`) : 'the test run came without a check';
    const checkedAtMs = Date.now();
    void probe(target).then((result) => {
      const sent = send({
        payload: {
          $case: 'testResult',
          value: {
            requestId,
            result: {
              id: randomUUID(),
              serviceId: assignment?.serviceId ?? '',
              assignmentVersion: assignment?.version ?? 0,
              ok: result.ok,
              // As a scheduled run is judged: the speed by the check's own degraded_after_ms.
              degraded: assignment !== undefined && runStatus(assignment, result) === 'YELLOW',
              speedJudged: true,
              responseTimeMs: result.responseTimeMs,
              message: result.message,
              checkedAtMs,
              details: result.details,
              adHoc: true,
            },
          },
        },
      });
      if (!sent) logger.info({ requestId }, 'a test run finished while disconnected; its result is dropped');
    }).catch((err) => logger.error({ err, requestId }, 'sending a test result failed'));
  };
}

function failed(message: string): ProbeResult {
  return { ok: false, responseTimeMs: 0, message, details: {} };
}
