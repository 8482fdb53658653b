// The reference for the agent's idle memory: a Node process that holds the same gRPC stream
// open with the same library (grpc-js and the generated client) and does nothing else. It is
// compiled and run as plain JS with the agent (tsx's loader would add its own memory), so the
// difference to the agent is what the agent itself keeps resident.
//
//   node <built>/bench/reference/idle-stream.js SERVER TOKEN
import { randomUUID } from 'node:crypto';
import { credentials } from '@grpc/grpc-js';
import { AgentServiceClient } from '../../shared/src/gen/agent.js';

const [server, token] = process.argv.slice(2);
if (!server || !token) throw new Error('usage: idle-stream.js SERVER TOKEN');
const client = new AgentServiceClient(server, credentials.createInsecure());
const stream = client.connect();
stream.on('data', () => undefined);
stream.on('error', () => undefined);
stream.write({ payload: { $case: 'hello', value: { agentId: randomUUID(), token, version: 'reference', location: 'bench', capabilities: [], hostname: 'bench' } } });
process.once('SIGTERM', () => {
  stream.end();
  client.close();
});
