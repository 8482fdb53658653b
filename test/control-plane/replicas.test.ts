// Two control-plane replicas on one PostgreSQL, in this process: what is done through one
// must hold on the other at once (assignments, placement, run-now, live events, rules, API
// keys, the API rate limit), and a replica whose bus connection is cut must catch up.
// The end-to-end version with processes behind HAProxy is test/e2e/replicas.test.ts.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { expect } from 'chai';
import WebSocket from 'ws';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, connectScriptedAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { requireServerDatabase } from '../support/test-database.js';

/** Long enough for a message in flight to arrive: a duplicate would show within it. */
const SETTLE_MS = 300;

interface Feed {
  socket: WebSocket;
  messages: { type: string; data: Record<string, unknown> }[];
}

function openFeed(cp: TestControlPlane, token: string): Promise<Feed> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${cp.baseUrl.replace('http', 'ws')}/api/v1/ws?token=${encodeURIComponent(token)}`);
    const messages: Feed['messages'] = [];
    socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
    socket.once('open', () => resolve({ socket, messages }));
    socket.once('error', reject);
  });
}

describe('replicas on one PostgreSQL', function () {
  this.timeout(60_000);
  let a: TestControlPlane;
  let b: TestControlPlane;
  let user: TestUser;
  const agents: ScriptedAgent[] = [];
  const feeds: Feed[] = [];
  const location = () => `replica-${randomUUID().slice(0, 8)}`;

  before(async function () {
    await requireServerDatabase(this, 'a session per replica for the cluster bus to listen on');
    a = await startTestControlPlane();
    b = await startTestControlPlane();
    user = await a.api.newUser('replicas');
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  });
  after(async () => {
    for (const f of feeds) f.socket.terminate();
    for (const agent of agents) agent.close();
    await a?.stop();
    await b?.stop();
  });

  const agentOn = async (cp: TestControlPlane, where: string) => {
    const agent = await connectReadyAgent(cp.running, where);
    agents.push(agent);
    return agent;
  };
  const createService = async (through: TestControlPlane, where: string, name = `svc-${randomUUID().slice(0, 8)}`) => {
    const r = await through.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600, locations: [where] }, user.token);
    expect(r.status, r.text).to.equal(201);
    return r.body as { id: string };
  };

  it('assigns a service created through one replica to the agent connected to the other', async () => {
    const where = location();
    const agent = await agentOn(b, where);
    const service = await createService(a, where);
    await poll(() => agent.held.has(service.id), { what: 'the assignment on the other replica', timeoutMs: 5_000 });
    expect((await a.api.del(`/services/${service.id}`, user.token)).status).to.equal(204);
    await poll(() => !agent.held.has(service.id), { what: 'the removal on the other replica', timeoutMs: 5_000 });
  });

  it('gives each service of a location to exactly one of its agents, whichever replica each is connected to', async () => {
    const where = location();
    const [onA, onB] = [await agentOn(a, where), await agentOn(b, where)];
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await createService(i % 2 ? a : b, where)).id);
    await poll(() => ids.every((id) => onA.held.has(id) || onB.held.has(id)), { what: 'every service assigned', timeoutMs: 5_000 });
    await delay(SETTLE_MS);
    expect(ids.filter((id) => onA.held.has(id) && onB.held.has(id)), 'held twice').to.deep.equal([]);
    expect(ids.filter((id) => onA.held.has(id)).length, "the first agent's share").to.be.within(1, 19);

    onB.close();
    await poll(() => ids.every((id) => onA.held.has(id)), { what: "the survivor holding the other's services", timeoutMs: 10_000 });
  });

  it('runs a check now through either replica, on the agent that holds it', async () => {
    const where = location();
    const agent = await agentOn(b, where);
    const service = await createService(b, where);
    await poll(() => agent.held.has(service.id), { what: 'the assignment' });
    expect((await a.api.post(`/services/${service.id}/check`, {}, user.token)).status).to.equal(202);
    await poll(() => agent.received.some((m) => m.payload?.$case === 'runNow' && m.payload.value.serviceId === service.id), { what: 'run-now on the other replica', timeoutMs: 5_000 });
  });

  it("shows every WebSocket client its organization's results exactly once, whichever replica stored them", async () => {
    const where = location();
    const agent = await agentOn(a, where);
    const service = await createService(a, where);
    const [onA, onB] = [await openFeed(a, user.token), await openFeed(b, user.token)];
    feeds.push(onA, onB);
    const stranger = await b.api.newUser('replicas-stranger');
    const other = await openFeed(b, stranger.token);
    feeds.push(other);
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = randomUUID();
      sent.push(id);
      await agent.sendResults([{ id, serviceId: service.id }]);
    }
    const resultsOf = (f: Feed) => f.messages.filter((m) => m.type === 'check_result').map((m) => String(m.data.id));
    for (const [name, feed] of [['same replica', onA], ['other replica', onB]] as const) {
      await poll(() => sent.every((id) => resultsOf(feed).includes(id)), { what: `every result on the ${name}`, timeoutMs: 5_000 });
    }
    await delay(SETTLE_MS);
    expect(resultsOf(onA).filter((id) => sent.includes(id))).to.deep.equal(sent);
    expect(resultsOf(onB).filter((id) => sent.includes(id))).to.deep.equal(sent);
    expect(resultsOf(other), "another organization's client").to.deep.equal([]);
  });

  it("relays an organization's live events only while a client of it is on another replica, from that client's first moment", async () => {
    const owner = await a.api.newUser('replicas-follows');
    const where = location();
    const agent = await agentOn(a, where);
    const created = await a.api.post('/services', { name: 'followed', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600, locations: [where] }, owner.token);
    expect(created.status, created.text).to.equal(201);
    const send = async () => {
      const id = randomUUID();
      expect(await agent.sendResults([{ id, serviceId: created.body.id }]), 'stored').to.equal(1);
      return id;
    };
    const relayed = async (resultId: string) => (await sql(`select 1 from cluster_events where origin = $1 and body::text like $2`, [a.running.replicaId, `%${resultId}%`])).length > 0;
    const followedOnB = async () => (await sql(`select 1 from replica_follows where replica_id = $1 and organization_id = $2`, [b.running.replicaId, owner.orgId])).length > 0;

    expect(await relayed(await send()), 'with no client of the organization anywhere').to.equal(false);

    const feed = await openFeed(b, owner.token);
    expect(await followedOnB(), 'announced before the socket opened').to.equal(true);
    const first = await send();
    expect(await relayed(first), 'the first result after the socket opened').to.equal(true);
    await poll(() => feed.messages.some((m) => m.type === 'check_result' && m.data.id === first), { what: "the result on the other replica's client", timeoutMs: 5_000 });

    feed.socket.close();
    await poll(async () => !(await followedOnB()), { what: 'the follow withdrawn', timeoutMs: 5_000 });
    // The replica storing results reads the withdrawal moments later.
    await poll(async () => !(await relayed(await send())), { what: 'relaying stopped', timeoutMs: 5_000, intervalMs: 100 });
    for (let i = 0; i < 3; i++) expect(await relayed(await send()), 'after the last client left').to.equal(false);
  });

  it('applies a rule changed through one replica to the next result ingested by the other', async () => {
    const where = location();
    const agent = await agentOn(b, where);
    const service = await createService(b, where);
    const rule = (await a.api.post('/alert-rules', { name: 'three', severity: 'critical', service_id: service.id, condition: { statuses: ['RED'], consecutive_failures: 3 } }, user.token)).body;
    const fail = () => agent.sendResults([{ serviceId: service.id, ok: false, message: 'refused' }]);
    const firing = async () => ((await b.api.get(`/alerts?service_id=${service.id}`, user.token)).body as unknown[]).length;
    await fail();
    expect(await firing(), 'one failure of three').to.equal(0);
    const changed = await a.api.put(`/alert-rules/${rule.id}`, { name: 'one', severity: 'critical', condition: { statuses: ['RED'], consecutive_failures: 1 } }, user.token);
    expect(changed.status, changed.text).to.equal(200);
    await fail();
    expect(await firing(), 'the changed rule, on the other replica').to.equal(1);
  });

  it('refuses an API key on every replica as soon as one revokes it', async () => {
    const key = (await a.api.post('/api-keys', { name: 'k', role: 'viewer' }, user.token)).body;
    expect((await b.api.get('/services', key.key)).status, 'before (and now remembered by the other replica)').to.equal(200);
    expect((await a.api.del(`/api-keys/${key.id}`, user.token)).status).to.equal(204);
    expect((await b.api.get('/services', key.key)).status).to.equal(401);
  });

  it("ends a deleted agent's stream on the other replica and refuses its token on both", async () => {
    const registered = await a.api.post('/agents', { name: 'edge', location: location() }, user.token);
    expect(registered.status, registered.text).to.equal(201);
    const agent = await connectScriptedAgent(b.running.grpcPort, registered.body.token);
    agents.push(agent);
    await poll(() => agent.received.some((m) => m.payload?.$case === 'snapshot'), { what: 'the snapshot on the other replica' });

    expect((await a.api.del(`/agents/${registered.body.id}`, user.token)).status).to.equal(204);

    expect((await agent.error).code, 'the stream held by the other replica').to.equal(GrpcStatus.UNAUTHENTICATED);
    for (const cp of [a, b]) {
      const again = await connectScriptedAgent(cp.running.grpcPort, registered.body.token);
      agents.push(again);
      expect((await again.error).code, 'a new stream with the deleted agent\'s token').to.equal(GrpcStatus.UNAUTHENTICATED);
    }
  });

  const busOf = async (cp: TestControlPlane) => {
    const names = await sql<{ application_name: string; pid: number }>(`select application_name, pid from pg_stat_activity where application_name like 'outpost-bus-%'`);
    return names.filter((n) => n.application_name === `outpost-bus-${cp.running.replicaId.slice(0, 8)}`).map((n) => n.pid);
  };
  /** Cuts the replica's listening connection from PostgreSQL's side; answers when it is back. */
  const cutBus = async (cp: TestControlPlane) => {
    const [before] = await busOf(cp);
    expect(before, "the replica's listening connection").to.be.a('number');
    await sql('select pg_terminate_backend($1)', [before]);
    return () => poll(async () => (await busOf(cp)).some((pid) => pid !== before), { what: 'the bus listening again', timeoutMs: 10_000 });
  };

  it('catches up after its bus connection is cut: what it missed reaches its agents', async () => {
    const where = location();
    const agent = await agentOn(b, where);
    const listening = await cutBus(b);
    // Made while the other replica is (most likely) still reconnecting: its notification is lost.
    const service = await createService(a, where);
    await listening();
    await poll(() => agent.held.has(service.id), { what: 'the missed service after the resync', timeoutMs: 5_000 });
  });

  it('catches up after its bus connection is cut: its WebSocket clients get the results they missed, once', async () => {
    const where = location();
    const agent = await agentOn(a, where);
    const service = await createService(a, where);
    const feed = await openFeed(b, user.token);
    feeds.push(feed);
    const listening = await cutBus(b);
    const sent = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of sent) await agent.sendResults([{ id, serviceId: service.id }]);
    await listening();
    const seen = () => feed.messages.filter((m) => m.type === 'check_result').map((m) => String(m.data.id));
    await poll(() => sent.every((id) => seen().includes(id)), { what: 'the results stored during the cut', timeoutMs: 5_000 });
    await delay(SETTLE_MS);
    expect(seen()).to.deep.equal(sent);
  });

  describe('the API rate limit', () => {
    let c: TestControlPlane;
    let d: TestControlPlane;
    before(async () => {
      c = await startTestControlPlane({ env: { API_RATE_LIMIT: '6/600' } });
      d = await startTestControlPlane({ env: { API_RATE_LIMIT: '6/600' } });
    });
    after(async () => {
      await c?.stop();
      await d?.stop();
    });

    it('holds across replicas', async () => {
      const limited = await c.api.newUser('replicas-limit');
      for (let i = 0; i < 3; i++) expect((await c.api.get('/services', limited.token)).status).to.equal(200);
      const counted = () => sql<{ points: number }>(`select points from rate_limits where key like $1`, [`api-shared:%:user:${limited.userId}`]);
      await poll(async () => (await counted())[0]?.points === 3, { what: "the first replica's count shared" });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await d.api.get('/services', limited.token)).status);
      expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
      await poll(async () => (await counted())[0]?.points === 6, { what: "the second replica's count shared" });
      // A replica reads the shared counts of the keys in use every 200 ms.
      await delay(1_000);
      expect((await c.api.get('/services', limited.token)).status, 'the first replica, told by the second').to.equal(429);
    });
  });
});

describe('a replica alone on PostgreSQL', function () {
  this.timeout(60_000);
  const started: TestControlPlane[] = [];
  const feeds: Feed[] = [];
  let agent: ScriptedAgent | undefined;
  before(async function () {
    await requireServerDatabase(this, 'a session per replica for the cluster bus to listen on');
  });
  after(async () => {
    for (const f of feeds) f.socket.terminate();
    agent?.close();
    for (const cp of started.reverse()) await cp.stop();
  });

  it('relays no live events while no other replica lives, and relays them as soon as one starts', async () => {
    // A replica another test killed keeps its lease for a few seconds.
    await poll(async () => (await sql(`select 1 from control_plane_replicas where expires_at > now()`)).length === 0, { what: 'no live replica', timeoutMs: 15_000 });
    const solo = await startTestControlPlane();
    started.push(solo);
    const user = await solo.api.newUser('replica-alone');
    agent = await connectReadyAgent(solo.running, 'alone');
    const service = await solo.api.post('/services', { name: 'alone', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600, locations: ['alone'] }, user.token);
    expect(service.status, service.text).to.equal(201);
    const relayed = async () => (await sql(`select 1 from cluster_events where origin = $1`, [solo.running.replicaId])).length;

    expect(await agent.sendResults([{ serviceId: service.body.id }]), 'stored').to.equal(1);
    expect(await relayed(), 'events relayed by a replica alone').to.equal(0);

    const second = await startTestControlPlane();
    started.push(second);
    const feed = await openFeed(second, user.token);
    feeds.push(feed);
    const id = randomUUID();
    await agent.sendResults([{ id, serviceId: service.body.id }]);
    await poll(() => feed.messages.some((m) => m.type === 'check_result' && m.data.id === id), { what: "the result on the second replica's feed", timeoutMs: 5_000 });
    expect(await relayed()).to.be.greaterThan(0);
  });
});
