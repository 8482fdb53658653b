// The control plane's side of the agent stream, driven by a scripted grpc-js agent.
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, connectScriptedAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';

describe('agent stream', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let user: TestUser;
  before(async () => {
    cp = await startTestControlPlane();
    user = await cp.api.newUser('stream');
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
    agent = await connectReadyAgent(cp.running, 'local');
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
  });

  const createService = async (fields: Record<string, unknown> = {}) => {
    const r = await cp.api.post('/services', { name: 'stream-svc', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', ...fields }, user.token);
    expect(r.status, r.text).to.equal(201);
    return r.body as { id: string };
  };

  it('welcomes the agent, then sends a snapshot', () => {
    const kinds = agent.received.map((m) => m.payload?.$case);
    expect(kinds.slice(0, 2)).to.deep.equal(['welcome', 'snapshot']);
  });

  it('refuses a bad token with UNAUTHENTICATED', async () => {
    const intruder = await connectScriptedAgent(cp.running.grpcPort, 'wrong-token');
    const err = await intruder.error;
    intruder.close();
    expect(err.code).to.equal(GrpcStatus.UNAUTHENTICATED);
  });

  it('upserts a created service, re-sends it with a higher version when edited, and removes it when deleted', async () => {
    const s = await createService();
    await poll(() => agent.held.get(s.id) === 1, { what: 'the upsert of the new service' });
    await cp.api.put(`/services/${s.id}`, { check_interval_seconds: 30 }, user.token);
    await poll(() => agent.held.get(s.id) === 2, { what: 'the upsert of the edit' });
    await cp.api.put(`/services/${s.id}`, { name: 'renamed only' }, user.token);
    await cp.api.del(`/services/${s.id}`, user.token);
    await poll(() => !agent.held.has(s.id), { what: 'the removal' });
    const upserts = agent.received.filter((m) => m.payload?.$case === 'upsert' && m.payload.value.assignment?.serviceId === s.id);
    expect(upserts, 'a rename does not reach the agent').to.have.length(2);
  });

  it('stores a result whose text no column could hold (NUL, a lone surrogate) repaired, instead of refusing the batch for ever', async () => {
    const s = await createService();
    const accepted = await agent.sendResults([{ serviceId: s.id, message: 'banner\u0000with\ud800odd bytes', details: { banner: 'a\u0000b' } }]);
    expect(accepted).to.equal(1);
    const [check] = (await cp.api.get(`/services/${s.id}/checks`, user.token)).body;
    expect(check.message).to.equal('banner\ufffdwith\ufffdodd bytes');
    expect(check.details).to.deep.equal({ banner: 'a\ufffdb' });
  });

  it('does not send services of other locations', async () => {
    const s = await createService({ locations: ['elsewhere'] });
    const probe = await createService({ locations: ['local'] });
    await poll(() => agent.held.has(probe.id), { what: 'the upsert of the local service' });
    expect(agent.held.has(s.id)).to.equal(false);
  });

  it('forwards an ad-hoc check as run_now', async () => {
    const s = await createService();
    await poll(() => agent.held.has(s.id), { what: 'the upsert' });
    await cp.api.post(`/services/${s.id}/check`, undefined, user.token);
    await poll(() => agent.received.some((m) => m.payload?.$case === 'runNow' && m.payload.value.serviceId === s.id), { what: 'run_now' });
  });

  it('stores a batch, sets the status, acknowledges it, and ignores a replay', async () => {
    const s = await createService();
    const id = randomUUID();
    const checkedAtMs = Date.now();
    const result = { id, serviceId: s.id, ok: true, responseTimeMs: 1500, checkedAtMs, message: 'HTTP 200 in 1500 ms', details: { status_code: 200, ttfb_ms: 1400 } };
    expect(await agent.sendResults([result])).to.equal(1);
    const svc = (await cp.api.get(`/services/${s.id}`, user.token)).body;
    expect(svc).to.include({ status: 'YELLOW', last_response_time_ms: 1500, last_checked_at: new Date(checkedAtMs).toISOString() });
    expect(await agent.sendResults([result]), 'a replay stores nothing').to.equal(0);
    const log = (await cp.api.get(`/services/${s.id}/checks`, user.token)).body;
    expect(log).to.have.length(1);
    expect(log[0]).to.include({ id, service_id: s.id, status: 'YELLOW', response_time_ms: 1500, location: 'local', agent_id: agent.agentId });
    expect(log[0].details).to.deep.equal({ status_code: 200, ttfb_ms: 1400 });
  });

  it('stores a result repeated within a batch once, and the new results of a batch that also replays', async () => {
    const s = await createService();
    const checkedAtMs = Date.now();
    const repeated = { id: randomUUID(), serviceId: s.id, checkedAtMs };
    const other = { id: randomUUID(), serviceId: s.id, checkedAtMs: checkedAtMs - 1_000 };
    expect(await agent.sendResults([repeated, other, repeated])).to.equal(2);
    const fresh = { id: randomUUID(), serviceId: s.id, checkedAtMs: checkedAtMs + 1_000 };
    expect(await agent.sendResults([other, fresh, repeated]), 'only the new one').to.equal(1);
    const log = (await cp.api.get(`/services/${s.id}/checks`, user.token)).body as { id: string }[];
    expect(log.map((r) => r.id).sort()).to.deep.equal([repeated.id, other.id, fresh.id].sort());
  });

  it('keeps the newest result as the status when a batch arrives out of order', async () => {
    const s = await createService();
    const now = Date.now();
    await agent.sendResults([{ serviceId: s.id, ok: false, checkedAtMs: now }]);
    await agent.sendResults([{ serviceId: s.id, ok: true, checkedAtMs: now - 60_000 }]);
    expect((await cp.api.get(`/services/${s.id}`, user.token)).body.status).to.equal('RED');
  });

  it('acknowledges results of a deleted service without storing them', async () => {
    const s = await createService();
    await cp.api.del(`/services/${s.id}`, user.token);
    expect(await agent.sendResults([{ serviceId: s.id }])).to.equal(0);
  });
});
