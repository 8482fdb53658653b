// Test runs for agents whose stream another replica holds. The asking replica sends the
// request there as a parcel; that replica runs it on its agent (runLocally, the gateway, which
// checks again that the stream is its own and that the agent serves the organization) and
// sends the outcome back the same way. The asker takes the outcome only from the replica it
// asked, and gives up at the request's timeout whatever happened on the way (a dead replica,
// a bus reconnecting, an agent of a version that ignores test runs).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { createPendingTestRuns } from '../features/agents/pending-test-runs.js';
import type { LocalTestRunner, RemoteTestRunner, TestRunOutcome, TestRunRequest } from '../features/agents/test-runs.js';
import type { Logger } from '../logger.js';
import type { Parcels } from './parcels.js';

/** The longest a test run waits: the longest check timeout (120 s) and the slack. */
const MAX_TIMEOUT_MS = 125_000;

const RelayedRequest = z.object({
  sessionId: z.string(),
  organizationId: z.string(),
  assignment: z.object({
    serviceId: z.string(),
    version: z.number().int().min(0),
    checkType: z.string(),
    endpoint: z.string(),
    intervalSeconds: z.number().int().positive(),
    timeoutSeconds: z.number().int().positive(),
    options: z.record(z.string(), z.unknown()),
  }),
  timeoutMs: z.number().int().positive().max(MAX_TIMEOUT_MS),
}) satisfies z.ZodType<TestRunRequest>;

const RelayedOutcome = z.discriminatedUnion('answered', [
  z.object({
    answered: z.literal(true),
    report: z.object({
      agentId: z.string(),
      ok: z.boolean(),
      degraded: z.boolean(),
      speedJudged: z.boolean(),
      responseTimeMs: z.number(),
      message: z.string(),
      details: z.record(z.string(), z.unknown()),
      checkedAtMs: z.number(),
    }),
  }),
  z.object({ answered: z.literal(false), reason: z.string() }),
]) satisfies z.ZodType<TestRunOutcome>;

export interface TestRunRelayDeps {
  parcels: Parcels;
  /** Runs a test on an agent whose stream this replica holds. */
  runLocally: LocalTestRunner;
  logger: Logger;
}

/** Registers the relay's handlers on the bus and answers how to ask another replica. */
export function createTestRunRelay({ parcels, runLocally, logger }: TestRunRelayDeps): RemoteTestRunner {
  const pending = createPendingTestRuns();

  parcels.receive('test-run', ({ id, from, body }) => {
    const request = RelayedRequest.safeParse(body);
    if (!request.success) return void logger.warn({ id, from }, 'refused a malformed test run from another replica');
    // Not awaited: the bus handles its messages one at a time, and a check may take minutes.
    void runLocally(request.data)
      .then((outcome) => parcels.send('test-result', from, id, outcome))
      .catch((err) => logger.warn({ err, id, to: from }, 'could not send a test run outcome back'));
  });

  parcels.receive('test-result', ({ id, from, body }) => {
    const outcome = RelayedOutcome.safeParse(body);
    if (!outcome.success) return void logger.warn({ id, from }, 'refused a malformed test run outcome from another replica');
    if (!pending.answer(id, from, outcome.data)) logger.debug({ id, from }, 'dropped a test run outcome: too late, or not asked of that replica');
  });

  return async (replicaId, request) => {
    const id = randomUUID();
    const answer = pending.wait(id, replicaId, request.timeoutMs);
    try {
      await parcels.send('test-run', replicaId, id, request);
    } catch (err) {
      // Unsent (the database is away): nothing will answer, so the wait ends here with the error.
      pending.answer(id, replicaId, { answered: false, reason: 'unsent' });
      throw err;
    }
    return answer;
  };
}
