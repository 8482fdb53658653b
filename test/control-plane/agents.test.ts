// Organizations' own agents: registration, tokens, presence, and what they may see and report.
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';

describe('agents', () => {
  let cp: TestControlPlane;
  before(async () => {
    cp = await startTestControlPlane();
  });
  after(() => cp?.stop());

  const register = async (u: TestUser, location = `office-${randomUUID().slice(0, 8)}`) => {
    const r = await cp.api.post('/agents', { name: 'edge-1', location }, u.token);
    expect(r.status, r.text).to.equal(201);
    return r.body;
  };
  const snapshotOf = async (agent: Awaited<ReturnType<typeof connectScriptedAgent>>) => {
    await poll(() => agent.received.some((m) => m.payload?.$case === 'snapshot'), { what: 'the snapshot' });
    return agent.held;
  };

  it('registers an agent and shows its token once', async () => {
    const u = await cp.api.newUser('agent-create');
    const created = await register(u, 'berlin');
    expect(created).to.include({ name: 'edge-1', location: 'berlin', status: 'offline', last_seen_at: null, organization_id: u.orgId });
    expect(created.token).to.match(/^opa_[A-Za-z0-9_-]{43}$/);
    const got = (await cp.api.get(`/agents/${created.id}`, u.token)).body;
    expect(got).to.not.have.property('token');
    expect((await cp.api.get('/agents', u.token)).body.map((a: any) => a.id)).to.deep.equal([created.id]);
  });

  it('answers the commands that install and start the agent, for this host and the bound gRPC port', async () => {
    const u = await cp.api.newUser('agent-install');
    const created = await register(u, 'berlin');
    const flags = `--server 127.0.0.1:${cp.running.grpcPort} --token ${created.token} --location berlin`;
    expect(created.install_commands).to.deep.equal({
      server: `127.0.0.1:${cp.running.grpcPort}`,
      deb: ['sudo apt install ./outpost-agent_*_amd64.deb', `sudo outpost-agent install ${flags}`],
      checkout: ['npm install && npm run build', `sudo node dist/agent/src/cli.js install ${flags}`],
    });
    const rotated = (await cp.api.post(`/agents/${created.id}/token`, undefined, u.token)).body;
    expect(rotated.install_commands.deb[1]).to.equal(`sudo outpost-agent install --server 127.0.0.1:${cp.running.grpcPort} --token ${rotated.token} --location berlin`);
    expect((await cp.api.get(`/agents/${created.id}`, u.token)).body).to.not.have.property('install_commands');
  });

  it('gives agents PUBLIC_GRPC_ADDRESS, with --insecure while the gRPC endpoint has no TLS', async () => {
    const behindNat = await startTestControlPlane({ env: { PUBLIC_GRPC_ADDRESS: 'outpost.example.com:443' } });
    try {
      const u = await behindNat.api.newUser('agent-public-address');
      const created = (await behindNat.api.post('/agents', { name: 'edge', location: 'lab' }, u.token)).body;
      expect(created.install_commands.server).to.equal('outpost.example.com:443');
      expect(created.install_commands.deb[1]).to.equal(`sudo outpost-agent install --server outpost.example.com:443 --token ${created.token} --location lab --insecure`);
    } finally {
      await behindNat.stop();
    }
  });

  it('validates input and keeps organizations apart', async () => {
    const u = await cp.api.newUser('agent-invalid');
    const stranger = await cp.api.newUser('agent-stranger');
    expect((await cp.api.post('/agents', { name: 'x', location: 'has spaces' }, u.token)).status).to.equal(400);
    expect((await cp.api.post('/agents', { location: 'x' }, u.token)).status).to.equal(400);
    const created = await register(u);
    expect((await cp.api.get(`/agents/${created.id}`, stranger.token)).status).to.equal(404);
    expect((await cp.api.del(`/agents/${created.id}`, stranger.token)).status).to.equal(404);
  });

  it("connects with its token, goes online, and receives only its organization's services of its location", async () => {
    const u = await cp.api.newUser('agent-scope');
    const other = await cp.api.newUser('agent-scope-other');
    const location = `dc-${randomUUID().slice(0, 8)}`;
    const created = await register(u, location);
    const mine = (await cp.api.post('/services', { name: 'mine', endpoint: '10.0.0.5:22', check_type: 'SSH', locations: [location] }, u.token)).body;
    const theirs = (await cp.api.post('/services', { name: 'theirs', endpoint: '10.0.0.6:22', check_type: 'SSH', locations: [location] }, other.token)).body;
    const agent = await connectScriptedAgent(cp.running.grpcPort, created.token, 'whatever-it-claims');
    try {
      const held = await snapshotOf(agent);
      expect([...held.keys()]).to.deep.equal([mine.id]);
      await poll(async () => (await cp.api.get(`/agents/${created.id}`, u.token)).body.status === 'online', { what: 'online' });
      expect(await agent.sendResults([{ serviceId: theirs.id, ok: false }]), "another organization's service is refused").to.equal(0);
      expect(await agent.sendResults([{ serviceId: mine.id, ok: true }])).to.equal(1);
      const [check] = (await cp.api.get(`/services/${mine.id}/checks`, u.token)).body;
      expect(check).to.include({ location, agent_id: created.id });
    } finally {
      agent.close();
    }
    await poll(async () => (await cp.api.get(`/agents/${created.id}`, u.token)).body.status === 'offline', { what: 'offline after the stream closes' });
  });

  it('keeps the previous token working after a rotation until it is revoked', async () => {
    const u = await cp.api.newUser('agent-rotate');
    const created = await register(u);
    const rotated = await cp.api.post(`/agents/${created.id}/token`, undefined, u.token);
    expect(rotated.body.token).to.not.equal(created.token);
    expect(rotated.body.previous_token_active).to.equal(true);
    const old = await connectScriptedAgent(cp.running.grpcPort, created.token);
    await snapshotOf(old);
    old.close();
    expect((await cp.api.del(`/agents/${created.id}/previous-token`, u.token)).body.previous_token_active).to.equal(false);
    const refused = await connectScriptedAgent(cp.running.grpcPort, created.token);
    expect((await refused.error).code).to.equal(GrpcStatus.UNAUTHENTICATED);
    refused.close();
    const fresh = await connectScriptedAgent(cp.running.grpcPort, rotated.body.token);
    await snapshotOf(fresh);
    fresh.close();
  });

  it('closes the stream of a deleted agent and refuses its token afterwards', async () => {
    const u = await cp.api.newUser('agent-delete');
    const created = await register(u);
    const agent = await connectScriptedAgent(cp.running.grpcPort, created.token);
    await snapshotOf(agent);
    expect((await cp.api.del(`/agents/${created.id}`, u.token)).status).to.equal(204);
    expect((await agent.error).code).to.equal(GrpcStatus.UNAUTHENTICATED);
    agent.close();
    const again = await connectScriptedAgent(cp.running.grpcPort, created.token);
    expect((await again.error).code).to.equal(GrpcStatus.UNAUTHENTICATED);
    again.close();
  });
});
