// The control plane's end of the agent stream: authenticates the hello, joins the agent to
// the assignment hub, ingests result batches and acknowledges each one once stored, and sends
// test runs to its agents, taking each one's answer only from the stream it was sent to.
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus, type ServerDuplexStream } from '@grpc/grpc-js';
import type { AgentMessage, CheckResult, ControlMessage, Hello, TestRunResult } from '../../../shared/src/gen/agent.js';
import { toStorableJson, toStorableText } from '../../../shared/src/storable-text.js';
import { isDatabaseUnavailable } from '../db/pg-errors.js';
import type { AgentAuthenticator } from '../features/agents/agent-auth.js';
import { servesOrganization } from '../features/agents/agent-sessions.js';
import { createPendingTestRuns } from '../features/agents/pending-test-runs.js';
import type { LocalTestRunner, TestRunOutcome } from '../features/agents/test-runs.js';
import type { AgentSession, AssignmentHub, HubMessage } from '../features/agents/assignment-hub.js';
import type { AgentResult, IngestService } from '../features/result-pipeline/ingest.js';
import type { AgentWatch } from '../features/watchdog/agent-watch.js';
import type { Logger } from '../logger.js';

const HELLO_TIMEOUT_MS = 10_000;
/** While the database is away a batch is tried again this often, so it is stored within a second of its return. */
const DATABASE_RETRY_MS = 1_000;
const HEARTBEAT_INTERVAL_SECONDS = 15;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOCATION = /^[a-z0-9][a-z0-9_.-]{0,62}$/i;

/** Where a registered agent's presence is recorded (status online/offline, last_seen_at). */
export interface AgentPresence {
  connected(agentId: string, facts: { version: string; hostname: string }): Promise<void>;
  seen(agentId: string): Promise<void>;
  disconnected(agentId: string): Promise<void>;
}

export interface AgentGatewayDeps {
  auth: AgentAuthenticator;
  hub: AssignmentHub;
  ingest: IngestService;
  presence: AgentPresence;
  /** Every agent's comings and goings, for the watchdog of silent agents. */
  watch?: AgentWatch;
  logger: Logger;
  /** An agent silent for this long is taken for gone and its services move elsewhere. */
  silenceLimitMs?: number;
}

type Stream = ServerDuplexStream<AgentMessage, ControlMessage>;

export interface AgentGateway {
  connect(call: Stream): void;
  /** Ends the streams of a registered agent (deleted, or its token revoked). */
  disconnectAgent(agentId: string): void;
  /** Runs a test on the agent of a stream this replica holds; answered by that stream alone. */
  runTest: LocalTestRunner;
  /** Ends every open stream (shutdown); agents reconnect elsewhere or later. */
  closeAll(): void;
  /** Resolves when every batch being ingested has been stored and acknowledged. */
  drain(): Promise<void>;
}

export function createAgentGateway({ auth, hub, ingest, presence, watch, logger, silenceLimitMs = HEARTBEAT_INTERVAL_SECONDS * 3_000 }: AgentGatewayDeps): AgentGateway {
  const open = new Map<Stream, AgentSession | undefined>();
  const quietly = (work: Promise<void>) => void work.catch((err) => logger.warn({ err }, 'recording agent presence failed'));
  const inFlight = new Set<Promise<void>>();
  const testRuns = createPendingTestRuns();
  let draining = false;

  /**
   * Stores a batch, waiting out a database outage for as long as the stream is open. Left to
   * the agent, the batch would come back only when its 30 s acknowledgement timeout ran out.
   */
  async function ingestUntilStored(call: Stream, origin: Parameters<IngestService['ingest']>[0], results: AgentResult[]): Promise<number> {
    for (;;) {
      try {
        return await ingest.ingest(origin, results);
      } catch (err) {
        if (!isDatabaseUnavailable(err) || draining || !open.has(call)) throw err;
        await new Promise((resolve) => setTimeout(resolve, DATABASE_RETRY_MS));
      }
    }
  }

  function fail(call: Stream, code: GrpcStatus, details: string): void {
    call.emit('error', { code, details });
  }

  async function welcome(call: Stream, hello: Hello): Promise<AgentSession | undefined> {
    const identity = await auth.verify(hello.token);
    if (!identity) return void fail(call, GrpcStatus.UNAUTHENTICATED, 'invalid agent token');
    if (!UUID.test(hello.agentId) || !LOCATION.test(hello.location)) {
      return void fail(call, GrpcStatus.INVALID_ARGUMENT, 'hello needs a UUID agent_id and a location of letters, digits, dots, dashes or underscores');
    }
    // A registered agent is who its token says, wherever it claims to be.
    const stream = {
      sessionId: randomUUID(),
      send: (m: HubMessage) => write(call, toControlMessage(m)),
      end: (reason: string) => fail(call, GrpcStatus.UNAVAILABLE, reason),
    };
    const session: AgentSession =
      identity.kind === 'platform'
        ? { ...stream, agentId: hello.agentId, location: hello.location, organizationId: null }
        : { ...stream, agentId: identity.agentId, location: identity.location, organizationId: identity.organizationId };
    if (identity.kind === 'organization') {
      if (hello.location !== identity.location) logger.warn({ agentId: identity.agentId, claimed: hello.location, registered: identity.location }, 'agent claims another location than it was registered with');
      quietly(presence.connected(identity.agentId, { version: toStorableText(hello.version), hostname: toStorableText(hello.hostname) }));
    }
    watch?.arrived({ agentId: session.agentId, organizationId: session.organizationId, registered: identity.kind === 'organization', location: session.location, hostname: toStorableText(hello.hostname) });
    write(call, { payload: { $case: 'welcome', value: { agentId: session.agentId, serverTimeMs: Date.now(), heartbeatIntervalSeconds: HEARTBEAT_INTERVAL_SECONDS } } });
    logger.info({ agentId: session.agentId, location: session.location, version: hello.version, organizationId: session.organizationId }, 'agent connected');
    void hub.join(session);
    return session;
  }

  function connect(call: Stream): void {
    open.set(call, undefined);
    let session: AgentSession | undefined;
    let greeting: Promise<AgentSession | undefined> | undefined;
    const storing = new Set<string>();
    const helloTimer = setTimeout(() => fail(call, GrpcStatus.DEADLINE_EXCEEDED, 'no hello within 10 s'), HELLO_TIMEOUT_MS);
    let silence: NodeJS.Timeout | undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => fail(call, GrpcStatus.UNAVAILABLE, `nothing heard from the agent for ${silenceLimitMs} ms`), silenceLimitMs);
    };

    call.on('data', async (message: AgentMessage) => {
      const payload = message.payload;
      heard();
      if (!greeting) {
        if (payload?.$case !== 'hello') return fail(call, GrpcStatus.FAILED_PRECONDITION, 'the first message must be hello');
        clearTimeout(helloTimer);
        greeting = welcome(call, payload.value).catch((err) => {
          logger.error({ err }, 'checking an agent hello failed');
          fail(call, GrpcStatus.UNAVAILABLE, 'the control plane could not check the hello; try again');
          return undefined;
        });
        session = await greeting;
        if (!session) return;
        if (open.has(call)) open.set(call, session);
        else finishLate(session); // the stream ended while the hello was being checked
        return;
      }
      session ??= await greeting;
      if (!session) return;
      if (payload?.$case === 'heartbeat' && session.organizationId) quietly(presence.seen(session.agentId));
      if (payload?.$case === 'testResult') {
        const outcome = toTestRunOutcome(session.agentId, payload.value) ?? { answered: false, reason: 'the agent answered with a malformed result' };
        // Only the stream the request went to may answer it; anything else is dropped.
        if (!testRuns.answer(payload.value.requestId, session.sessionId, outcome)) logger.debug({ agentId: session.agentId, requestId: payload.value.requestId }, 'dropped a test result: too late, or not asked of this agent');
      }
      if (payload?.$case === 'results') {
        const origin = { agentId: session.agentId, location: session.location, organizationId: session.organizationId };
        const batch = payload.value;
        // A batch sent again while its first copy waits for the database is already in hand.
        if (storing.has(batch.batchId)) return;
        storing.add(batch.batchId);
        const work = ingestUntilStored(call, origin, batch.results.filter(isWellFormed).map(toAgentResult))
          .then((accepted) => write(call, { payload: { $case: 'ack', value: { batchId: batch.batchId, accepted } } }))
          // Not acknowledged: the agent keeps the batch and sends it again.
          .catch((err) => logger.error({ err, batchId: batch.batchId }, 'ingesting a result batch failed'))
          .finally(() => {
            storing.delete(batch.batchId);
            inFlight.delete(work);
          });
        inFlight.add(work);
      }
    });

    // welcome() already queued the join; the hub's queue runs this leave after it.
    const finishLate = (late: AgentSession) => {
      if (late.organizationId) quietly(presence.disconnected(late.agentId));
      watch?.left(late.agentId);
      void hub.leave(late);
    };
    const finish = () => {
      clearTimeout(helloTimer);
      clearTimeout(silence);
      if (!open.has(call)) return;
      open.delete(call);
      if (session) {
        testRuns.abandon(session.sessionId, 'the agent disconnected before it answered');
        logger.info({ agentId: session.agentId }, 'agent disconnected');
        if (session.organizationId) quietly(presence.disconnected(session.agentId));
        watch?.left(session.agentId);
        void hub.leave(session);
      }
    };
    call.on('end', () => {
      finish();
      call.end();
    });
    call.on('cancelled', finish);
    call.on('error', finish);
    call.on('close', finish);
  }

  return {
    connect,
    runTest({ sessionId, organizationId, assignment, timeoutMs }) {
      const held = [...open].find(([, session]) => session?.sessionId === sessionId);
      const session = held?.[1];
      if (!held || !session) return Promise.resolve({ answered: false, reason: 'the agent is no longer connected' });
      // Asked again here, whoever asks: a request from another replica names a session only.
      if (!servesOrganization(session, organizationId)) return Promise.resolve({ answered: false, reason: 'the agent may not run checks for this organization' });
      const requestId = randomUUID();
      const answer = testRuns.wait(requestId, sessionId, timeoutMs);
      write(held[0], { payload: { $case: 'testRun', value: { requestId, assignment } } });
      return answer;
    },
    disconnectAgent(agentId) {
      for (const [call, session] of open) if (session?.agentId === agentId) fail(call, GrpcStatus.UNAUTHENTICATED, 'this agent was removed');
    },
    closeAll() {
      for (const call of open.keys()) fail(call, GrpcStatus.UNAVAILABLE, 'the control plane is shutting down');
    },
    async drain() {
      draining = true;
      await Promise.all([...inFlight]);
    },
  };
}

function write(call: Stream, message: ControlMessage): void {
  if (!call.writableEnded && !call.destroyed) call.write(message);
}

function isWellFormed(r: CheckResult): boolean {
  return UUID.test(r.id) && UUID.test(r.serviceId) && Number.isFinite(r.responseTimeMs) && Number.isFinite(r.checkedAtMs) && r.checkedAtMs > 0;
}

function toAgentResult(r: CheckResult): AgentResult {
  return {
    id: r.id,
    serviceId: r.serviceId,
    ok: r.ok,
    degraded: r.degraded,
    speedJudged: r.speedJudged,
    responseTimeMs: r.responseTimeMs,
    // What a target answered may hold text no column can store; repaired, never refused,
    // or the batch would come back forever.
    message: toStorableText(r.message),
    checkedAt: new Date(r.checkedAtMs),
    adHoc: r.adHoc,
    details: toStorableJson(r.details ?? {}) as Record<string, unknown>,
  };
}

/** An agent's test result as a report; undefined when it is not one (no result, numbers that are not). */
function toTestRunOutcome(agentId: string, { result }: TestRunResult): TestRunOutcome | undefined {
  if (!result || !Number.isFinite(result.responseTimeMs) || !Number.isFinite(result.checkedAtMs) || result.checkedAtMs <= 0) return undefined;
  return {
    answered: true,
    report: {
      agentId,
      ok: result.ok,
      degraded: result.degraded,
      speedJudged: result.speedJudged,
      responseTimeMs: result.responseTimeMs,
      message: toStorableText(result.message),
      details: toStorableJson(result.details ?? {}) as Record<string, unknown>,
      checkedAtMs: result.checkedAtMs,
    },
  };
}

function toControlMessage(m: HubMessage): ControlMessage {
  switch (m.kind) {
    case 'snapshot':
      return { payload: { $case: 'snapshot', value: { assignments: m.assignments } } };
    case 'upsert':
      return { payload: { $case: 'upsert', value: { assignment: m.assignment } } };
    case 'removal':
      return { payload: { $case: 'removal', value: { serviceId: m.serviceId, version: m.version } } };
    case 'runNow':
      return { payload: { $case: 'runNow', value: { serviceId: m.serviceId } } };
  }
}
