// POST /services/test: an unsaved service's check run once by a real agent (in this process,
// on its own location) against a real HTTP server of the test, through the real control plane.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { credentials, type ClientDuplexStream } from '@grpc/grpc-js';
import { expect } from 'chai';
import { pino } from 'pino';
import { createAgent, type Agent } from '../../agent/src/agent.js';
import { defaultProbers } from '../../agent/src/probers/index.js';
import { createProberRegistry } from '../../agent/src/probers/registry.js';
import type { AgentMessage, ControlMessage, TestRun } from '../../shared/src/gen/agent.js';
import { AgentServiceClient } from '../../shared/src/gen/agent_service.js';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { requireServerDatabase } from '../support/test-database.js';

const BEARER = 's3cret-token';
/** Replicas share their data keys (deploy/README.md): what one seals, another opens. */
const env = { DATA_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` };

/** The check's target: /ok answers 200, /fail 500, /auth 200 to the bearer token only, /size the length of the body it got. */
async function startTarget(): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer((req, res) => {
    let received = 0;
    req.on('data', (chunk: Buffer) => (received += chunk.length));
    req.on('end', () => {
      if (req.url === '/ok') return res.end('hello');
      if (req.url === '/auth') return res.writeHead(req.headers.authorization === `Bearer ${BEARER}` ? 200 : 401).end();
      if (req.url === '/size') return res.end(String(received));
      res.writeHead(500).end('boom');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** An agent that holds the stream and does only what the test tells it: it answers no test run by itself. */
interface SilentAgent {
  agentId: string;
  testRuns: TestRun[];
  send(message: AgentMessage): void;
  close(): void;
}

function openSilentAgent(grpcPort: number, token: string, location: string): SilentAgent {
  const client = new AgentServiceClient(`127.0.0.1:${grpcPort}`, credentials.createInsecure());
  const call: ClientDuplexStream<AgentMessage, ControlMessage> = client.connect();
  const testRuns: TestRun[] = [];
  call.on('data', (m: ControlMessage) => m.payload?.$case === 'testRun' && testRuns.push(m.payload.value));
  call.on('error', () => undefined);
  const agentId = randomUUID();
  call.write({ payload: { $case: 'hello', value: { agentId, token, version: 'old', location, capabilities: ['HTTP'], hostname: 'test' } } });
  return {
    agentId,
    testRuns,
    send: (message) => call.write(message),
    close() {
      call.cancel();
      client.close();
    },
  };
}

const online = (agentId: string) => poll(async () => (await sql('select 1 from agent_sessions where agent_id = $1', [agentId])).length > 0, { what: `agent ${agentId} online` });
const newLocation = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;

describe('POST /services/test', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;
  let user: TestUser;
  let target: { url: string; server: http.Server };
  const agents: Agent[] = [];
  const silent: SilentAgent[] = [];
  const dataDirs: string[] = [];
  /** Where the real agent of `cp` is. */
  const here = newLocation('try');
  let agentId: string;

  /** A real agent, with every prober, connected to `through`'s gRPC port; answers its id once online. */
  const startRealAgent = async (through: TestControlPlane, location: string): Promise<string> => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-try-'));
    dataDirs.push(dataDir);
    const agent = createAgent({
      server: `127.0.0.1:${through.running.grpcPort}`,
      token: through.running.agentToken,
      location,
      dataDir,
      version: 'test',
      registry: createProberRegistry(defaultProbers()),
      logger: pino({ level: 'silent' }),
    });
    agents.push(agent);
    await agent.start();
    await online(agent.status().agentId);
    return agent.status().agentId;
  };

  before(async () => {
    cp = await startTestControlPlane({ env });
    target = await startTarget();
    user = await cp.api.newUser('try');
    agentId = await startRealAgent(cp, here);
  });
  after(async () => {
    for (const agent of silent) agent.close();
    await Promise.all(agents.map((a) => a.stop()));
    await cp?.stop();
    target?.server.close();
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  const body = (fields: Record<string, unknown> = {}) => ({ name: 'tried', check_type: 'http', endpoint: `${target.url}/ok`, locations: [here], ...fields });
  const tryOut = (fields: Record<string, unknown> = {}, token: string | undefined = user.token, through = cp) => through.api.post('/services/test', body(fields), token);

  it("runs the check on an agent of the body's first location and answers with its result and details", async () => {
    const before = Date.now();
    const r = await tryOut({ options: { assertions: [{ source: 'status', comparison: 'equals', target: 200 }] } });
    expect(r.status, r.text).to.equal(200);
    expect(r.body).to.include({ status: 'GREEN', location: here, agent_id: agentId });
    expect(r.body.message).to.be.a('string').and.not.equal('');
    expect(r.body.response_time_ms).to.be.a('number').at.least(0);
    expect(r.body.details.status_code).to.equal(200);
    expect(r.body.details.assertions).to.have.length(1);
    expect(r.body.details.assertions[0]).to.include({ source: 'status', comparison: 'equals', target: 200, passed: true });
    expect(Date.parse(r.body.checked_at)).to.be.within(before, Date.now());
  });

  it('runs from `location` when the body names one, and answers RED with the message of a failing check', async () => {
    const r = await tryOut({ endpoint: `${target.url}/fail`, locations: undefined, location: here });
    expect(r.status, r.text).to.equal(200);
    expect(r.body).to.include({ status: 'RED', location: here });
    expect(r.body.message).to.contain('500').and.to.contain('unexpected status');
  });

  it("hands the agent the body's secrets, open, as a saved service's", async () => {
    const r = await tryOut({ endpoint: `${target.url}/auth`, options: { bearer_token: BEARER } });
    expect(r.status, r.text).to.equal(200);
    expect(r.body.status, r.body.message).to.equal('GREEN');
  });

  it("runs an edited saved service with its stored secrets behind the masks, for its organization's members only", async () => {
    const editor = await cp.api.newUser('try-edit');
    // Saved where no agent runs, so that it never takes an assignment of the agent here.
    const saved = await cp.api.post('/services', body({ endpoint: `${target.url}/auth`, locations: [newLocation('unserved')], options: { bearer_token: BEARER } }), editor.token);
    expect(saved.status, saved.text).to.equal(201);
    expect(saved.body.options.bearer_token).to.equal('********');
    const edited = { service_id: saved.body.id, endpoint: `${target.url}/auth`, location: here, options: saved.body.options };
    const withStored = await tryOut(edited, editor.token);
    expect(withStored.status, withStored.text).to.equal(200);
    expect(withStored.body.status, withStored.body.message).to.equal('GREEN');
    // Without service_id the mask is just text, and the resource refuses it.
    const withoutService = await tryOut({ ...edited, service_id: undefined }, editor.token);
    expect(withoutService.body.status).to.equal('RED');
    // Another organization's service is not found, and its secret not used.
    expect((await tryOut(edited)).status).to.equal(404);
  });

  it('stores nothing: no service, no result, no assignment', async () => {
    expect((await tryOut()).status).to.equal(200);
    const list = await cp.api.get('/services', user.token);
    expect(list.headers.get('x-total-count')).to.equal('0');
    expect(await sql('select id from check_results where organization_id = $1 or agent_id = $2', [user.orgId, agentId])).to.deep.equal([]);
    expect(await sql('select id from services where organization_id = $1', [user.orgId])).to.deep.equal([]);
    expect(agents[0]!.status().assignments).to.equal(0);
  });

  it('answers 409 naming the location when no agent there may run checks for the organization', async () => {
    const nowhere = newLocation('nowhere');
    const r = await tryOut({ location: nowhere });
    expect(r.status, r.text).to.equal(409);
    expect(r.body.error).to.contain(`"${nowhere}"`);

    // Another organization's own agent serves only that organization.
    const other = await cp.api.newUser('try-other');
    const theirs = newLocation('theirs');
    const registered = await cp.api.post('/agents', { name: 'edge', location: theirs }, other.token);
    expect(registered.status, registered.text).to.equal(201);
    const agent = openSilentAgent(cp.running.grpcPort, registered.body.token, theirs);
    silent.push(agent);
    await online(registered.body.id);
    expect((await tryOut({ location: theirs })).status).to.equal(409);
  });

  it('answers 504 when the agent asked does not answer in time, whoever else answers for it', async () => {
    const where = newLocation('silent');
    const pair = [openSilentAgent(cp.running.grpcPort, cp.running.agentToken, where), openSilentAgent(cp.running.grpcPort, cp.running.agentToken, where)];
    silent.push(...pair);
    for (const agent of pair) await online(agent.agentId);
    const started = Date.now();
    const answer = tryOut({ location: where, timeout_seconds: 1 });
    const asked = await poll(() => pair.find((a) => a.testRuns.length > 0), { what: 'the test run on one of the agents' });
    const run = asked.testRuns[0]!;
    expect(run.assignment).to.include({ checkType: 'HTTP', endpoint: `${target.url}/ok`, timeoutSeconds: 1, version: 0 });
    // The other agent answers in its place: the control plane must not take that answer.
    const intruder = pair.find((a) => a !== asked)!;
    intruder.send({
      payload: {
        $case: 'testResult',
        value: {
          requestId: run.requestId,
          result: { id: randomUUID(), serviceId: run.assignment!.serviceId, assignmentVersion: 0, ok: true, responseTimeMs: 1, message: 'forged', checkedAtMs: Date.now(), details: {}, adHoc: true, degraded: false, speedJudged: true },
        },
      },
    });
    const r = await answer;
    expect(r.status, r.text).to.equal(504);
    expect(r.body.error).to.equal('no agent answered within 6 s');
    expect(Date.now() - started).to.be.at.least(5_500);
  });

  it('refuses a bad body with 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ timeout_seconds: 0 }, 'timeout_seconds'],
      [{ endpoint: 'not a url' }, 'endpoint'],
      [{ options: { no_such_option: 1 } }, 'options'],
      [{ location: 'not a location!' }, 'location'],
      [{ name: undefined }, 'name'],
      // As saving refuses them: a secret that does not exist, and text around a reference in a secret option.
      [{ options: { headers: { 'x-key': '{{secrets.NOWHERE}}' } } }, 'options.headers.x-key'],
      [{ options: { bearer_token: 'v1.{{secrets.NOWHERE}}' } }, 'options.bearer_token'],
    ];
    for (const [fields, field] of cases) {
      const r = await tryOut(fields);
      expect(r.status, r.text).to.equal(400);
      expect(r.body.details.map((d: { path: string }) => d.path).join(' '), r.text).to.contain(field);
    }
  });

  it('refuses a viewer with 403 and an anonymous caller with 401', async () => {
    const viewer = await cp.api.keyWithRole(user, 'viewer');
    expect((await tryOut({}, viewer)).status).to.equal(403);
    expect((await cp.api.post('/services/test', body())).status).to.equal(401);
  });

  describe('with replicas', () => {
    let other: TestControlPlane;
    const there = newLocation('there');
    let otherAgentId: string;

    before(async function () {
      await requireServerDatabase(this, 'a session per replica for the cluster bus to listen on');
      other = await startTestControlPlane({ env });
      otherAgentId = await startRealAgent(other, there);
    });
    after(async () => {
      await Promise.all(agents.splice(1).map((a) => a.stop()));
      await other?.stop();
    });

    it("runs the check on an agent connected to another replica, a body larger than one bus message included", async () => {
      const large = 'x'.repeat(20_000);
      const r = await tryOut({
        endpoint: `${target.url}/size`,
        locations: [there],
        options: { method: 'POST', body: large, assertions: [{ source: 'body', comparison: 'equals', target: String(large.length) }] },
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ status: 'GREEN', location: there, agent_id: otherAgentId });
      expect(r.body.details.assertions[0]).to.include({ passed: true });
    });
  });
});
