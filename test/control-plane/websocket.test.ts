import { expect } from 'chai';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';

const TEST_SECRET = new TextEncoder().encode('outpost-test-secret-0123456789abcdefghijklmnop');

/** A token as login issues it, but for any organization and lifetime (the test knows the secret). */
function tokenFor(u: TestUser, organizationId: string, lifetimeSeconds = 3600): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ user_id: u.userId, tenant_id: organizationId, email: u.email })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + lifetimeSeconds)
    .sign(TEST_SECRET);
}

/** Resolves with the close code and reason, or rejects when the socket stays open past the deadline. */
function closedWithin(socket: WebSocket, ms: number): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the socket was still open after ${ms} ms`)), ms);
    socket.once('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString() });
    });
  });
}

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
    agent = await connectReadyAgent(cp.running);
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

  describe('authorization, at the upgrade and for as long as the socket is open', () => {
    const open = async (token: string) => {
      const r = await handshake(wsUrl(token));
      expect(r.status, 'upgrade').to.equal(101);
      sockets.push(r.feed!.socket);
      return r.feed!.socket;
    };
    const addMember = async (owner: TestUser, label: string) => {
      const u = await cp.api.newUser(label);
      expect((await cp.api.post('/members', { email: u.email, role: 'viewer' }, owner.token)).status).to.equal(201);
      return u;
    };

    it("refuses with 403 a valid token of a user who is not a member of the token's organization", async () => {
      const outsider = await cp.api.newUser('ws-outsider');
      expect((await handshake(wsUrl(await tokenFor(outsider, alice.orgId)))).status).to.equal(403);
      expect((await handshake(wsUrl(await tokenFor(outsider, outsider.orgId)))).status, 'in their own').to.equal(101);
    });

    it('refuses an expired token with 401, and closes a socket with 4401 when its token expires', async () => {
      expect((await handshake(wsUrl(await tokenFor(alice, alice.orgId, -10)))).status).to.equal(401);
      const socket = await open(await tokenFor(alice, alice.orgId, 2));
      expect(await closedWithin(socket, 6_000)).to.deep.equal({ code: 4401, reason: 'the token has expired' });
    });

    it('closes a socket with 4403 within 5 s when its API key is revoked', async () => {
      const created = await cp.api.post('/api-keys', { name: 'feed', role: 'viewer' }, alice.token);
      const socket = await open(created.body.key);
      expect((await cp.api.del(`/api-keys/${created.body.id}`, alice.token)).status).to.equal(204);
      expect(await closedWithin(socket, 5_000)).to.deep.equal({ code: 4403, reason: 'the API key was revoked' });
    });

    it('closes a socket with 4403 within 5 s when its member is removed, and refuses them afterwards', async () => {
      const member = await addMember(alice, 'ws-removed');
      const token = await tokenFor(member, alice.orgId);
      const socket = await open(token);
      expect((await cp.api.del(`/members/${member.userId}`, alice.token)).status).to.equal(204);
      expect(await closedWithin(socket, 5_000)).to.deep.equal({ code: 4403, reason: 'no longer a member of this organization' });
      expect((await handshake(wsUrl(token))).status).to.equal(403);
    });

    it('closes a socket with 4403 within 5 s when its user is deleted', async () => {
      const member = await addMember(alice, 'ws-deleted');
      const socket = await open(await tokenFor(member, alice.orgId));
      await sql('delete from users where id = $1', [member.userId]);
      expect((await closedWithin(socket, 5_000)).code).to.equal(4403);
    });

    it('keeps the sockets whose right still holds while it closes one whose right ended', async () => {
      const socket = await open(alice.token);
      const kept = await open((await cp.api.post('/api-keys', { name: 'stays', role: 'viewer' }, alice.token)).body.key);
      const revoked = await cp.api.post('/api-keys', { name: 'goes', role: 'viewer' }, alice.token);
      const closing = await open(revoked.body.key);
      await cp.api.del(`/api-keys/${revoked.body.id}`, alice.token);
      expect((await closedWithin(closing, 5_000)).code, 'a re-check round ran').to.equal(4403);
      expect([socket.readyState, kept.readyState]).to.deep.equal([WebSocket.OPEN, WebSocket.OPEN]);
    });
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
