// The control plane's end of the agent stream: authenticates the hello, joins the agent to
// the assignment hub, ingests result batches and acknowledges each one once stored.
import { status as GrpcStatus, type ServerDuplexStream } from '@grpc/grpc-js';
import type { AgentMessage, ControlMessage, CheckResult } from '../../../shared/src/gen/agent.js';
import type { AgentAuthenticator } from '../features/agents/agent-auth.js';
import type { AgentSession, AssignmentHub, HubMessage } from '../features/agents/assignment-hub.js';
import type { AgentResult, IngestService } from '../features/checks/ingest.service.js';
import type { Logger } from '../logger.js';

const HELLO_TIMEOUT_MS = 10_000;
const HEARTBEAT_INTERVAL_SECONDS = 15;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOCATION = /^[a-z0-9][a-z0-9_.-]{0,62}$/i;

export interface AgentGatewayDeps {
  auth: AgentAuthenticator;
  hub: AssignmentHub;
  ingest: IngestService;
  logger: Logger;
}

type Stream = ServerDuplexStream<AgentMessage, ControlMessage>;

export interface AgentGateway {
  connect(call: Stream): void;
  /** Ends every open stream (shutdown); agents reconnect elsewhere or later. */
  closeAll(): void;
  /** Resolves when every batch being ingested has been stored and acknowledged. */
  drain(): Promise<void>;
}

export function createAgentGateway({ auth, hub, ingest, logger }: AgentGatewayDeps): AgentGateway {
  const open = new Set<Stream>();
  const inFlight = new Set<Promise<void>>();

  function fail(call: Stream, code: GrpcStatus, details: string): void {
    call.emit('error', { code, details });
  }

  function connect(call: Stream): void {
    open.add(call);
    let session: AgentSession | undefined;
    const helloTimer = setTimeout(() => fail(call, GrpcStatus.DEADLINE_EXCEEDED, 'no hello within 10 s'), HELLO_TIMEOUT_MS);

    call.on('data', (message: AgentMessage) => {
      const payload = message.payload;
      if (!session) {
        if (payload?.$case !== 'hello') return fail(call, GrpcStatus.FAILED_PRECONDITION, 'the first message must be hello');
        clearTimeout(helloTimer);
        const hello = payload.value;
        if (!auth.verify(hello.token)) return fail(call, GrpcStatus.UNAUTHENTICATED, 'invalid agent token');
        if (!UUID.test(hello.agentId) || !LOCATION.test(hello.location)) {
          return fail(call, GrpcStatus.INVALID_ARGUMENT, 'hello needs a UUID agent_id and a location of letters, digits, dots, dashes or underscores');
        }
        session = { agentId: hello.agentId, location: hello.location, send: (m) => write(call, toControlMessage(m)) };
        write(call, { payload: { $case: 'welcome', value: { agentId: hello.agentId, serverTimeMs: Date.now(), heartbeatIntervalSeconds: HEARTBEAT_INTERVAL_SECONDS } } });
        logger.info({ agentId: hello.agentId, location: hello.location, version: hello.version }, 'agent connected');
        void hub.join(session);
        return;
      }
      if (payload?.$case === 'results') {
        const origin = { agentId: session.agentId, location: session.location };
        const batch = payload.value;
        const work = ingest
          .ingest(origin, batch.results.filter(isWellFormed).map(toAgentResult))
          .then((accepted) => write(call, { payload: { $case: 'ack', value: { batchId: batch.batchId, accepted } } }))
          // Not acknowledged: the agent keeps the batch and sends it again.
          .catch((err) => logger.error({ err, batchId: batch.batchId }, 'ingesting a result batch failed'))
          .finally(() => inFlight.delete(work));
        inFlight.add(work);
      }
    });

    const finish = () => {
      clearTimeout(helloTimer);
      if (!open.delete(call)) return;
      if (session) {
        logger.info({ agentId: session.agentId }, 'agent disconnected');
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
    closeAll() {
      for (const call of open) fail(call, GrpcStatus.UNAVAILABLE, 'the control plane is shutting down');
    },
    async drain() {
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
    responseTimeMs: r.responseTimeMs,
    message: r.message,
    checkedAt: new Date(r.checkedAtMs),
    adHoc: r.adHoc,
    details: r.details ?? {},
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
