// The reference for the agent's idle memory: a Node process that holds the same gRPC stream
// open with the same client (the agent's own, agent/src/control/grpc-stream.ts, and the
// generated messages) and does nothing else. It is compiled and run as plain JS with the
// agent (tsx's loader would add its own memory), so the difference to the agent is what the
// agent itself keeps resident.
//
//   node <built>/bench/reference/idle-stream.js SERVER TOKEN
import { randomUUID } from 'node:crypto';
import { CONNECT_PATH } from '../../agent/src/control/connection.js';
import { openGrpcStream } from '../../agent/src/control/grpc-stream.js';
import { AgentMessage, ControlMessage } from '../../shared/src/gen/agent.js';

const [server, token] = process.argv.slice(2);
if (!server || !token) throw new Error('usage: idle-stream.js SERVER TOKEN');
const stream = openGrpcStream<AgentMessage, ControlMessage>(
  { target: server, path: CONNECT_PATH, userAgent: 'outpost-idle-reference', encode: (m) => AgentMessage.encode(m).finish(), decode: (b) => ControlMessage.decode(b) },
  { onMessage: () => undefined, onStatus: () => undefined },
);
stream.write({ payload: { $case: 'hello', value: { agentId: randomUUID(), token, version: 'reference', location: 'bench', capabilities: [], hostname: 'bench' } } });
process.once('SIGTERM', () => stream.cancel());
