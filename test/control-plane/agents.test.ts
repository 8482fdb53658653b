// Organizations' own agents: registration, tokens, presence, and what they may see and report.
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { expect } from 'chai';
import pg from 'pg';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, connectScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { requireServerDatabase, testDatabase } from '../support/test-database.js';

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

  it("stores small batches that queued behind others in one transaction, each result still held to its agent's organization", async function () {
    await requireServerDatabase(this, 'a second database session to hold a row lock');
    const db = await testDatabase();
    const u = await cp.api.newUser('agent-group');
    const other = await cp.api.newUser('agent-group-other');
    const location = `dc-${randomUUID().slice(0, 8)}`;
    const created = await register(u, location);
    const service = async (name: string, owner: TestUser) => (await cp.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', locations: [location] }, owner.token)).body.id as string;
    const held = await service('held', u);
    const mine = await service('mine', u);
    const mineToo = await service('mine-too', u);
    const theirs = await service('theirs', other);
    const metric = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await (await fetch(`${cp.baseUrl}/metrics`)).text())?.[1]);
    const platform = await connectReadyAgent(cp.running, location);
    const platformToo = await connectReadyAgent(cp.running, location);
    const own = await connectScriptedAgent(cp.running.grpcPort, created.token);
    await snapshotOf(own);
    const transactionsBefore = await metric('outpost_ingest_transactions_total');
    const batchesBefore = await metric('outpost_ingest_transaction_batches_total');

    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    let first: Promise<number>[];
    let queued: Promise<number>[];
    try {
      await locker.query('begin');
      await locker.query('select 1 from services where id = $1 for update', [held]);
      // Two transactions, as many as run at once, wait for the locked service...
      first = [platform.sendResults([{ serviceId: held }]), platformToo.sendResults([{ serviceId: held }])];
      const waitingOnLocks = async () => (await sql<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`))[0]!.n;
      await poll(async () => (await waitingOnLocks()) === 2, { what: 'both transactions to wait for the lock' });
      // ...so these batches, two of an organization's agent and one of a platform agent, queue.
      queued = [own.sendResults([{ serviceId: theirs }, { serviceId: mine }]), own.sendResults([{ serviceId: mineToo }]), platform.sendResults([{ serviceId: theirs }])];
      await poll(async () => (await metric('outpost_ingest_waiting_batches')) === 3, { what: 'three batches waiting' });
    } finally {
      await locker.query('rollback');
      await locker.end();
    }
    try {
      expect(await Promise.all(first)).to.deep.equal([1, 1]);
      expect(await Promise.all(queued), "the organization's agent stores only its own organization's results").to.deep.equal([1, 1, 1]);
      expect((await metric('outpost_ingest_transaction_batches_total')) - batchesBefore).to.equal(5);
      expect((await metric('outpost_ingest_transactions_total')) - transactionsBefore, 'the three small batches that waited in one transaction').to.equal(3);
      expect(await metric('outpost_ingest_waiting_batches')).to.equal(0);
      const checksOf = async (id: string, owner: TestUser) => ((await cp.api.get(`/services/${id}/checks`, owner.token)).body as { agent_id: string }[]).map((c) => c.agent_id);
      expect(await checksOf(mine, u)).to.deep.equal([created.id]);
      expect(await checksOf(mineToo, u)).to.deep.equal([created.id]);
      expect(await checksOf(theirs, other)).to.deep.equal([platform.agentId]);
    } finally {
      for (const agent of [platform, platformToo, own]) agent.close();
    }
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
