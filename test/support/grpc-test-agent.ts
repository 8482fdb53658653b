// A scripted agent for control-plane tests: a real grpc-js client on the agent stream that
// records what the control plane sends and submits result batches on demand.
import { randomUUID } from 'node:crypto';
import { credentials, type ClientDuplexStream } from '@grpc/grpc-js';
import type { AgentMessage, CheckResult, ControlMessage } from '../../shared/src/gen/agent.js';
import { AgentServiceClient } from '../../shared/src/gen/agent_service.js';
import { poll } from './poll.js';

export interface ScriptedAgent {
  agentId: string;
  received: ControlMessage[];
  acks: Map<string, number>;
  /** Assignments held, applied from snapshot/upsert/removal like a real agent. */
  held: Map<string, number>;
  error: Promise<{ code?: number; details?: string }>;
  sendResults(results: Partial<CheckResult>[], batchId?: string): Promise<number>;
  close(): void;
}

export async function connectScriptedAgent(grpcPort: number, token: string, location = 'local', agentId = randomUUID()): Promise<ScriptedAgent> {
  const client = new AgentServiceClient(`127.0.0.1:${grpcPort}`, credentials.createInsecure());
  const call: ClientDuplexStream<AgentMessage, ControlMessage> = client.connect();
  const received: ControlMessage[] = [];
  const acks = new Map<string, number>();
  const held = new Map<string, number>();
  const error = new Promise<{ code?: number; details?: string }>((resolve) => call.on('error', resolve));
  call.on('data', (m: ControlMessage) => {
    received.push(m);
    const p = m.payload;
    if (p?.$case === 'ack') acks.set(p.value.batchId, p.value.accepted);
    if (p?.$case === 'snapshot') {
      held.clear();
      for (const a of p.value.assignments) held.set(a.serviceId, a.version);
    }
    if (p?.$case === 'upsert' && p.value.assignment) held.set(p.value.assignment.serviceId, p.value.assignment.version);
    if (p?.$case === 'removal') held.delete(p.value.serviceId);
  });
  call.write({ payload: { $case: 'hello', value: { agentId, token, version: 'test', location, capabilities: ['HTTP', 'TCP'], hostname: 'test' } } });

  return {
    agentId,
    received,
    acks,
    held,
    error,
    async sendResults(results, batchId = randomUUID()) {
      const full = results.map((r): CheckResult => ({
        id: randomUUID(),
        serviceId: '',
        assignmentVersion: 1,
        ok: true,
        degraded: false,
        speedJudged: false,
        responseTimeMs: 10,
        message: 'ok',
        checkedAtMs: Date.now(),
        details: {},
        adHoc: false,
        ...r,
      }));
      call.write({ payload: { $case: 'results', value: { batchId, results: full } } });
      const ack = await poll(() => acks.has(batchId) && { accepted: acks.get(batchId)! }, { what: `ack of batch ${batchId}` });
      return ack.accepted;
    },
    close() {
      call.cancel();
      client.close();
    },
  };
}

/** The shared-token agent of a test control plane, once it holds its first snapshot. */
export async function connectReadyAgent(running: { grpcPort: number; agentToken: string }, location?: string): Promise<ScriptedAgent> {
  const agent = await connectScriptedAgent(running.grpcPort, running.agentToken, location);
  await poll(() => agent.received.some((m) => m.payload?.$case === 'snapshot'), { what: 'the snapshot' });
  return agent;
}
