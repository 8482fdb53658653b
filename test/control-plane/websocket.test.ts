import { expect } from 'chai';
import WebSocket from 'ws';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectScriptedAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';

interface Feed {
  messages: { type: string; data: Record<string, unknown> }[];
  socket: WebSocket;
}

function handshake(url: string): Promise<{ status: number; feed?: Feed }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const messages: Feed['messages'] = [];
    socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
    socket.once('open', () => resolve({ status: 101, feed: { messages, socket } }));
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    socket.once('error', reject);
  });
}

describe('websocket feed', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let alice: TestUser;
  let bob: TestUser;
  const sockets: WebSocket[] = [];
  const wsUrl = (token?: string) => `${cp.baseUrl.replace('http', 'ws')}/api/v1/ws${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;

  before(async () => {
    cp = await startTestControlPlane();
    [alice, bob] = await Promise.all([cp.api.newUser('ws-alice'), cp.api.newUser('ws-bob')]);
    agent = await connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken);
    await poll(() => agent.received.some((m) => m.payload?.$case === 'snapshot'), { what: 'the snapshot' });
  });
  after(async () => {
    for (const s of sockets) s.terminate();
    agent?.close();
    await cp?.stop();
  });

  it('refuses the upgrade with 401 without a valid token', async () => {
    expect((await handshake(wsUrl())).status).to.equal(401);
    expect((await handshake(wsUrl('garbage'))).status).to.equal(401);
  });

  it("sends check_result and service_status to the service's organization only", async () => {
    const a = await handshake(wsUrl(alice.token));
    const b = await handshake(wsUrl(bob.token));
    sockets.push(a.feed!.socket, b.feed!.socket);
    const serviceId = (await cp.api.post('/services', { name: 'live', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, alice.token)).body.id;
    await agent.sendResults([{ serviceId, ok: false, responseTimeMs: 12, message: 'connection refused' }]);
    const result = await poll(() => a.feed!.messages.find((m) => m.type === 'check_result'), { what: 'check_result' });
    expect(result.data).to.include({ service_id: serviceId, service_name: 'live', status: 'RED', previous_status: null, response_time_ms: 12, message: 'connection refused', location: 'local' });
    const change = await poll(() => a.feed!.messages.find((m) => m.type === 'service_status'), { what: 'service_status' });
    expect(change.data).to.include({ service_id: serviceId, status: 'RED', previous_status: null });
    // Bob's socket is open and subscribed; one more event for Bob proves the earlier ones would have arrived.
    const bobService = (await cp.api.post('/services', { name: 'bobs', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, bob.token)).body.id;
    await agent.sendResults([{ serviceId: bobService }]);
    await poll(() => b.feed!.messages.some((m) => m.data.service_id === bobService), { what: "Bob's own event" });
    expect(b.feed!.messages.filter((m) => m.data.service_id === serviceId)).to.deep.equal([]);
  });
});
