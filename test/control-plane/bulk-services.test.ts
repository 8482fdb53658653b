// Pausing services and acting on many at once (issue 39, item 8), against the real control
// plane and database: 1,000 services in one request with another organization's ids among
// them, each action's effect, what agents are told (a scripted agent's assignments and a real
// agent process's), and what a paused service keeps.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startAgentProcess, type AgentProcess } from '../support/agent-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { requireServerDatabase } from '../support/test-database.js';

interface Service {
  id: string;
  name: string;
  tags: string[];
  locations: string[];
  paused: boolean;
  status: string | null;
  updated_at: string;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** Creates `count` services through the API, a few at a time, in creation order. */
async function createMany(cp: TestControlPlane, user: TestUser, count: number, fields: Record<string, unknown> = {}): Promise<Service[]> {
  const created: Service[] = [];
  for (let i = 0; i < count; i += 25) {
    const batch = Array.from({ length: Math.min(25, count - i) }, (_, j) =>
      cp.api.post('/services', { name: `svc-${i + j}`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600, ...fields }, user.token),
    );
    for (const r of await Promise.all(batch)) {
      expect(r.status, r.text).to.equal(201);
      created.push(r.body);
    }
  }
  return created;
}

const outcomesOf = (body: { results: { id: string; outcome: string }[] }) => new Map(body.results.map((r) => [r.id, r.outcome]));

describe('bulk actions on services', function () {
  this.timeout(120_000);
  let cp: TestControlPlane;
  let owner: TestUser;
  let other: TestUser;
  const agents: ScriptedAgent[] = [];

  before(async () => {
    cp = await startTestControlPlane();
    owner = await cp.api.newUser('bulk-owner');
    other = await cp.api.newUser('bulk-other');
    for (const u of [owner, other]) await sql(`update organizations set plan = 'unlimited' where id = $1`, [u.orgId]);
  });
  after(async () => {
    for (const agent of agents) agent.close();
    await cp?.stop();
  });

  const bulk = (body: Record<string, unknown>, token = owner.token) => cp.api.post('/services/bulk', body, token);
  const rowsOf = (ids: string[]) => sql<{ id: string; paused: boolean; tags: string[]; locations: string[]; config_version: number; updated_at: Date }>(
    'select id, paused, tags, locations, config_version, updated_at from services where id = any($1::uuid[]) order by id', [ids],
  );
  const agentIn = async (location: string) => {
    const agent = await connectReadyAgent(cp.running, location);
    agents.push(agent);
    return agent;
  };

  describe('on 1,000 services with another organization\'s ids among them', () => {
    const location = `bulk-${randomUUID().slice(0, 8)}`;
    let own: Service[];
    let foreign: Service[];
    let agent: ScriptedAgent;
    let ids: string[];

    before(async () => {
      agent = await agentIn(location);
      own = await createMany(cp, owner, 990, { locations: [location] });
      foreign = await createMany(cp, other, 5, { locations: [location] });
      // 990 of the owner's, 5 of another organization's, 5 unknown: 1,000 ids.
      ids = [...own.map((s) => s.id), ...foreign.map((s) => s.id), ...Array.from({ length: 5 }, () => randomUUID())];
      await poll(() => agent.held.size === 995, { what: 'the agent to hold all 995 services', timeoutMs: 30_000 });
    });

    it('pauses them in one request, answers not_found for the others, and the agent drops every paused one', async () => {
      const before = await rowsOf(foreign.map((s) => s.id));
      const r = await bulk({ ids, action: 'pause' });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.action).to.equal('pause');
      expect(r.body.results).to.have.length(1000);
      expect(r.body.results.map((x: { id: string }) => x.id)).to.deep.equal(ids);
      expect(r.body.counts).to.deep.equal({ paused: 990, resumed: 0, updated: 0, deleted: 0, queued: 0, unchanged: 0, skipped: 0, not_found: 10 });
      const outcomes = outcomesOf(r.body);
      for (const s of foreign) expect(outcomes.get(s.id)).to.equal('not_found');

      const rows = await rowsOf(own.map((s) => s.id));
      expect(rows.filter((row) => row.paused)).to.have.length(990);
      // Nothing done to the other organization's services: not paused, not even touched.
      expect(await rowsOf(foreign.map((s) => s.id))).to.deep.equal(before);

      await poll(() => agent.held.size === 5, { what: 'the agent to drop the 990 paused services', timeoutMs: 15_000 });
      expect([...agent.held.keys()].sort()).to.deep.equal(foreign.map((s) => s.id).sort());
    });

    it('answers unchanged when they are paused already', async () => {
      const r = await bulk({ ids, action: 'pause' });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.counts).to.include({ paused: 0, unchanged: 990, not_found: 10 });
    });

    it('resumes them, and the agent takes every one back at its new version', async () => {
      const r = await bulk({ ids, action: 'resume' });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.counts).to.include({ resumed: 990, not_found: 10 });
      await poll(() => agent.held.size === 995, { what: 'the agent to hold the resumed services again', timeoutMs: 15_000 });
      const versions = new Map((await rowsOf(own.map((s) => s.id))).map((row) => [row.id, row.config_version]));
      for (const s of own) expect(agent.held.get(s.id), s.name).to.equal(versions.get(s.id));
    });

    it('adds and removes tags on all of them, leaving the others\' alone', async () => {
      const added = await bulk({ ids, action: 'add_tags', tags: ['fleet', 'fleet', 'eu'] });
      expect(added.status, added.text).to.equal(200);
      expect(added.body.counts).to.include({ updated: 990, not_found: 10 });
      const rows = await rowsOf(ids);
      expect(rows.filter((row) => JSON.stringify(row.tags) === '["fleet","eu"]')).to.have.length(990);
      expect(rows.filter((row) => row.tags.length === 0)).to.have.length(5);

      const removed = await bulk({ ids, action: 'remove_tags', tags: ['eu', 'absent'] });
      expect(removed.body.counts).to.include({ updated: 990, not_found: 10 });
      const again = await bulk({ ids, action: 'remove_tags', tags: ['eu'] });
      expect(again.body.counts).to.include({ updated: 0, unchanged: 990 });
      expect((await rowsOf(own.map((s) => s.id))).every((row) => JSON.stringify(row.tags) === '["fleet"]')).to.equal(true);
    });

    it('deletes them all, and the agent drops them', async () => {
      const r = await bulk({ ids, action: 'delete' });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.counts).to.include({ deleted: 990, not_found: 10 });
      expect(await rowsOf(own.map((s) => s.id))).to.have.length(0);
      expect(await rowsOf(foreign.map((s) => s.id))).to.have.length(5);
      await poll(() => agent.held.size === 5, { what: 'the agent to drop the deleted services', timeoutMs: 15_000 });
    });
  });

  describe('each action', () => {
    it('sets locations as an update would: the agents of the new location take the services over', async () => {
      const [from, to] = [`from-${randomUUID().slice(0, 8)}`, `to-${randomUUID().slice(0, 8)}`];
      const [agentFrom, agentTo] = [await agentIn(from), await agentIn(to)];
      const services = await createMany(cp, owner, 3, { locations: [from] });
      const ids = services.map((s) => s.id);
      await poll(() => agentFrom.held.size === 3, { what: 'the first location to hold them' });

      const r = await bulk({ ids: [...ids, ids[0]], action: 'set_locations', locations: [to, to] });
      expect(r.status, r.text).to.equal(200);
      // A repeated id counts once.
      expect(r.body.results).to.have.length(3);
      expect(r.body.counts).to.include({ updated: 3 });
      expect((await rowsOf(ids)).map((row) => row.locations)).to.deep.equal([[to], [to], [to]]);
      await poll(() => agentTo.held.size === 3 && agentFrom.held.size === 0, { what: 'the services to move to the new location' });

      const same = await bulk({ ids, action: 'set_locations', locations: [to] });
      expect(same.body.counts).to.include({ unchanged: 3 });
    });

    it('checks them now on the agents that hold them, and skips a paused one', async () => {
      const where = `check-${randomUUID().slice(0, 8)}`;
      const agent = await agentIn(where);
      const [a, b, paused] = await createMany(cp, owner, 3, { locations: [where] });
      expect((await cp.api.put(`/services/${paused!.id}`, { paused: true }, owner.token)).status).to.equal(200);
      await poll(() => agent.held.size === 2, { what: 'the agent to hold the two running services' });

      const r = await bulk({ ids: [a!.id, b!.id, paused!.id], action: 'check' });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.results).to.deep.equal([
        { id: a!.id, outcome: 'queued' },
        { id: b!.id, outcome: 'queued' },
        { id: paused!.id, outcome: 'skipped', reason: 'the service is paused: resume it to check it' },
      ]);
      const ranNow = () => new Set(agent.received.flatMap((m) => (m.payload?.$case === 'runNow' ? [m.payload.value.serviceId] : [])));
      await poll(() => ranNow().has(a!.id) && ranNow().has(b!.id), { what: 'run-now of both services' });
      expect(ranNow().has(paused!.id)).to.equal(false);
    });

    it('skips a heartbeat for every action but delete, with the reason', async () => {
      const hb = await cp.api.post('/heartbeats', { name: 'nightly', interval_seconds: 3600, grace_seconds: 60 }, owner.token);
      expect(hb.status, hb.text).to.equal(201);
      const [row] = await sql<{ service_id: string }>('select service_id from heartbeats where id = $1', [hb.body.id]);
      for (const body of [{ action: 'pause' }, { action: 'add_tags', tags: ['x'] }, { action: 'set_locations', locations: ['local'] }, { action: 'check' }]) {
        const r = await bulk({ ids: [row!.service_id], ...body });
        expect(r.status, r.text).to.equal(200);
        expect(r.body.results[0].outcome, body.action).to.equal('skipped');
        expect(r.body.results[0].reason, body.action).to.match(/heartbeat/);
      }
      expect((await rowsOf([row!.service_id]))[0]).to.include({ paused: false });
    });

    it('changes nothing when add_tags would give one service more than 50 tags', async () => {
      const [full, empty] = [
        (await createMany(cp, owner, 1, { tags: Array.from({ length: 50 }, (_, i) => `t${i}`) }))[0]!,
        (await createMany(cp, owner, 1))[0]!,
      ];
      const r = await bulk({ ids: [empty.id, full.id], action: 'add_tags', tags: ['one-more'] });
      expect(r.status, r.text).to.equal(400);
      expect(r.body.error).to.match(/more than 50 tags/);
      expect((await rowsOf([empty.id]))[0]!.tags).to.deep.equal([]);
    });
  });

  describe('who may act, and what is refused', () => {
    it('lets a member act and answers 403 to a viewer, changing nothing', async () => {
      const [s] = await createMany(cp, owner, 1);
      const viewer = await cp.api.keyWithRole(owner, 'viewer');
      const refused = await bulk({ ids: [s!.id], action: 'pause' }, viewer);
      expect(refused.status, refused.text).to.equal(403);
      expect((await rowsOf([s!.id]))[0]!.paused).to.equal(false);
      const member = await cp.api.keyWithRole(owner, 'member');
      const done = await bulk({ ids: [s!.id], action: 'pause' }, member);
      expect(done.status, done.text).to.equal(200);
      expect(done.body.results).to.deep.equal([{ id: s!.id, outcome: 'paused' }]);
    });

    it('answers not_found for another organization\'s service, and 403 for naming that organization', async () => {
      const [s] = await createMany(cp, other, 1);
      const r = await bulk({ ids: [s!.id], action: 'delete' });
      expect(r.body.results).to.deep.equal([{ id: s!.id, outcome: 'not_found' }]);
      expect(await rowsOf([s!.id])).to.have.length(1);
      // Naming the other organization outright is a 403: the owner is no member of it.
      expect((await bulk({ ids: [s!.id], action: 'delete', organization_id: other.orgId })).status).to.equal(403);
    });

    const id = randomUUID();
    const invalid: [string, Record<string, unknown>, RegExp][] = [
      ['add_tags without tags', { ids: [id], action: 'add_tags' }, /tags: add_tags needs tags/],
      ['remove_tags with no tags', { ids: [id], action: 'remove_tags', tags: [] }, /tags: remove_tags needs tags/],
      ['set_locations without locations', { ids: [id], action: 'set_locations' }, /locations: set_locations needs locations/],
      ['a bad location name', { ids: [id], action: 'set_locations', locations: ['no spaces'] }, /locations\.0: a location is/],
      ['tags for pause', { ids: [id], action: 'pause', tags: ['x'] }, /tags: pause takes no tags/],
      ['more than 1,000 ids', { ids: Array.from({ length: 1001 }, () => randomUUID()), action: 'pause' }, /ids: ids names at most 1000 services/],
      ['no ids', { ids: [], action: 'pause' }, /ids: ids must name at least one service/],
      ['an id that is not a UUID', { ids: ['svc-1'], action: 'pause' }, /ids\.0: each id must be a UUID/],
      ['an unknown action', { ids: [id], action: 'archive' }, /action: action must be one of pause, resume, delete/],
      ['a missing action', { ids: [id] }, /action: action must be one of/],
      ['an unknown field', { ids: [id], action: 'pause', force: true }, /unknown field force/],
    ];
    for (const [what, body, message] of invalid) {
      it(`answers 400 for ${what}`, async () => {
        const r = await bulk(body);
        expect(r.status, r.text).to.equal(400);
        expect(r.body.error).to.match(message);
      });
    }
  });

  describe('a paused service', () => {
    it('is created paused when asked, and never assigned', async () => {
      const where = `created-${randomUUID().slice(0, 8)}`;
      const agent = await agentIn(where);
      const [s] = await createMany(cp, owner, 1, { locations: [where], paused: true });
      expect(s!.paused).to.equal(true);
      const [running] = await createMany(cp, owner, 1, { locations: [where] });
      expect(running!.paused).to.equal(false);
      await poll(() => agent.held.has(running!.id), { what: 'the running service to be assigned' });
      expect(agent.held.has(s!.id)).to.equal(false);
    });

    it('keeps its status, shows paused in its JSON and the overview, and refuses a check now', async () => {
      const where = `status-${randomUUID().slice(0, 8)}`;
      const agent = await agentIn(where);
      const [s] = await createMany(cp, owner, 1, { locations: [where] });
      await poll(() => agent.held.has(s!.id), { what: 'the assignment' });
      await agent.sendResults([{ serviceId: s!.id, assignmentVersion: agent.held.get(s!.id)!, ok: false, message: 'refused' }]);
      await poll(async () => (await cp.api.get(`/services/${s!.id}`, owner.token)).body.status === 'RED', { what: 'RED' });

      const paused = await cp.api.put(`/services/${s!.id}`, { paused: true }, owner.token);
      expect(paused.status, paused.text).to.equal(200);
      expect(paused.body).to.include({ paused: true, status: 'RED' });
      await poll(() => !agent.held.has(s!.id), { what: 'the agent to drop it' });
      const overview = await cp.api.get('/services/overview', owner.token);
      expect(overview.body.services.find((row: { id: string }) => row.id === s!.id)).to.include({ paused: true, status: 'RED' });
      const check = await cp.api.post(`/services/${s!.id}/check`, undefined, owner.token);
      expect(check.status, check.text).to.equal(409);
      expect(check.body.error).to.match(/paused/);

      const resumed = await cp.api.put(`/services/${s!.id}`, { paused: false }, owner.token);
      expect(resumed.body).to.include({ paused: false, status: 'RED' });
      await poll(() => agent.held.has(s!.id), { what: 'the agent to take it back' });
      expect((await cp.api.post(`/services/${s!.id}/check`, undefined, owner.token)).status).to.equal(202);
    });

    it('refuses a paused that is not a boolean', async () => {
      const r = await cp.api.post('/services', { name: 'x', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', paused: 'yes' }, owner.token);
      expect(r.status).to.equal(400);
      expect(r.body.error).to.match(/paused must be true or false/);
    });
  });

  describe('with a real agent process', () => {
    let agent: AgentProcess | undefined;
    let dataDir: string;
    before(() => {
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-bulk-agent-'));
    });
    afterEach(async function () {
      if (this.currentTest?.state === 'failed' && agent) console.log(agent.output().slice(-4000));
      await agent?.kill('SIGKILL');
    });
    after(() => rmSync(dataDir, { recursive: true, force: true }));

    it('drops the assignment of a paused service and takes it back on resume', async () => {
      const where = `process-${randomUUID().slice(0, 8)}`;
      const statusPort = await freePort();
      agent = startAgentProcess({ server: `127.0.0.1:${cp.running.grpcPort}`, token: cp.running.agentToken, location: where, dataDir, extra: ['--status-addr', `127.0.0.1:${statusPort}`] });
      const held = async () => {
        const r = await fetch(`http://127.0.0.1:${statusPort}/healthz`);
        const body = (await r.json()) as { connected: boolean; assignments: number };
        return body.connected ? body.assignments : -1;
      };
      const services = await createMany(cp, owner, 2, { locations: [where] });
      await poll(async () => (await held()) === 2, { what: 'the agent to hold both services', timeoutMs: 30_000 });

      expect((await bulk({ ids: [services[0]!.id], action: 'pause' })).body.counts.paused).to.equal(1);
      await poll(async () => (await held()) === 1, { what: 'the agent to drop the paused service' });
      expect((await bulk({ ids: [services[0]!.id], action: 'resume' })).body.counts.resumed).to.equal(1);
      await poll(async () => (await held()) === 2, { what: 'the agent to take the resumed service back' });
    });
  });
});

describe('bulk actions across replicas', function () {
  this.timeout(60_000);
  let a: TestControlPlane;
  let b: TestControlPlane;
  let user: TestUser;
  let agent: ScriptedAgent | undefined;

  before(async function () {
    await requireServerDatabase(this, 'a session per replica for the cluster bus to listen on');
    a = await startTestControlPlane();
    b = await startTestControlPlane();
    user = await a.api.newUser('bulk-replicas');
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  });
  after(async () => {
    agent?.close();
    await a?.stop();
    await b?.stop();
  });

  it('tells the agents of the other replica, in a few messages for 250 services', async () => {
    const where = `replica-${randomUUID().slice(0, 8)}`;
    agent = await connectReadyAgent(b.running, where);
    const services = await createMany(a, user, 250, { locations: [where] });
    const ids = services.map((s) => s.id);
    await poll(() => agent!.held.size === 250, { what: 'the agent on the other replica to hold them', timeoutMs: 30_000 });

    expect((await a.api.post('/services/bulk', { ids, action: 'pause' }, user.token)).body.counts.paused).to.equal(250);
    await poll(() => agent!.held.size === 0, { what: 'the paused services dropped through the other replica' });
    expect((await a.api.post('/services/bulk', { ids, action: 'resume' }, user.token)).body.counts.resumed).to.equal(250);
    await poll(() => agent!.held.size === 250, { what: 'the resumed services taken back through the other replica' });
    expect((await a.api.post('/services/bulk', { ids, action: 'check' }, user.token)).body.counts.queued).to.equal(250);
    await poll(() => new Set(agent!.received.flatMap((m) => (m.payload?.$case === 'runNow' ? [m.payload.value.serviceId] : []))).size === 250, { what: 'run-now of all 250' });
    expect((await a.api.post('/services/bulk', { ids, action: 'delete' }, user.token)).body.counts.deleted).to.equal(250);
    await poll(() => agent!.held.size === 0, { what: 'the deleted services dropped through the other replica' });
  });
});
