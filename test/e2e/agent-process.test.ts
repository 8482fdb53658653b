// A standalone agent process against a real control plane: statuses follow the target, and
// results survive a control-plane outage plus a SIGKILL of the agent.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startAgentProcess, type AgentProcess } from '../support/agent-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** An HTTP target that can be stopped and started again on the same port; counts answered requests. */
class Target {
  server?: http.Server;
  answered = 0;
  constructor(readonly port: number) {}
  get url() {
    return `http://127.0.0.1:${this.port}/`;
  }
  async start() {
    this.server = http.createServer((_req, res) => res.end('ok', () => this.answered++));
    await new Promise<void>((r) => this.server!.listen(this.port, '127.0.0.1', r));
  }
  async stop() {
    this.server?.closeAllConnections();
    await new Promise((r) => (this.server ? this.server.close(r) : r(undefined)));
    this.server = undefined;
  }
}

describe('e2e: standalone agent process', function () {
  this.timeout(90_000);
  const location = `e2e-${process.pid}`;
  let cp: TestControlPlane;
  let grpcPort: number;
  let user: TestUser;
  let agent: AgentProcess | undefined;
  let agentDir: string;
  const targets: Target[] = [];

  before(async () => {
    grpcPort = await freePort();
    cp = await startTestControlPlane({ grpcPort });
    user = await cp.api.newUser('e2e');
    agentDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-agent-'));
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && agent) console.log(agent.output().slice(-4000));
    await agent?.kill('SIGKILL');
    agent = undefined;
    for (const t of targets.splice(0)) await t.stop();
  });
  after(async () => {
    await cp?.stop();
    rmSync(agentDir, { recursive: true, force: true });
  });

  const startAgent = () => startAgentProcess({ server: `127.0.0.1:${grpcPort}`, token: cp.running.agentToken, location, dataDir: agentDir });
  const statusOf = async (id: string) => (await cp.api.get(`/services/${id}`, user.token)).body.status;
  const newTarget = async () => {
    const t = new Target(await freePort());
    targets.push(t);
    await t.start();
    return t;
  };

  it('turns a service GREEN, RED when its target stops, and GREEN when it is back', async () => {
    const target = await newTarget();
    agent = startAgent();
    const created = await cp.api.post('/services', { name: 'e2e-flip', endpoint: target.url, check_type: 'HTTP', check_interval_seconds: 3600, locations: [location] }, user.token);
    expect(created.status, created.text).to.equal(201);
    const id = created.body.id;
    await poll(async () => (await statusOf(id)) === 'GREEN', { what: 'GREEN', timeoutMs: 20_000 });
    await target.stop();
    await cp.api.post(`/services/${id}/check`, undefined, user.token);
    await poll(async () => (await statusOf(id)) === 'RED', { what: 'RED', timeoutMs: 15_000 });
    await target.start();
    await cp.api.post(`/services/${id}/check`, undefined, user.token);
    await poll(async () => (await statusOf(id)) === 'GREEN', { what: 'GREEN again', timeoutMs: 15_000 });
    const log = (await cp.api.get(`/services/${id}/checks`, user.token)).body;
    expect(log.map((c: { status: string }) => c.status).slice(0, 3)).to.deep.equal(['GREEN', 'RED', 'GREEN']);
    expect(log[0].location).to.equal(location);
    expect((await agent.kill('SIGTERM')), 'a graceful stop exits 0').to.equal(0);
  });

  it('delivers every result after a control-plane outage and a SIGKILL of the agent, each exactly once', async () => {
    const target = await newTarget();
    agent = startAgent();
    const created = await cp.api.post('/services', { name: 'e2e-spool', endpoint: target.url, check_type: 'HTTP', check_interval_seconds: 5, locations: [location] }, user.token);
    const id = created.body.id;
    await poll(async () => (await statusOf(id)) === 'GREEN', { what: 'the first result', timeoutMs: 20_000 });

    await cp.stop();
    const answeredAtOutage = target.answered;
    // Let the agent run checks it cannot deliver, then kill it between two checks.
    await poll(() => target.answered >= answeredAtOutage + 2, { what: 'checks during the outage', timeoutMs: 20_000, intervalMs: 20 });
    await new Promise((r) => setTimeout(r, 500)); // the run after an answer ends well within this
    await agent.kill('SIGKILL');
    const answeredBeforeKill = target.answered;

    cp = await startTestControlPlane({ grpcPort });
    agent = startAgent();
    const logOf = async () => (await cp.api.get(`/services/${id}/checks?limit=1000`, user.token)).body as { id: string }[];
    await poll(async () => (await logOf()).length >= answeredBeforeKill, { what: `${answeredBeforeKill} results in the log`, timeoutMs: 30_000 });
    expect(await agent.kill('SIGTERM'), 'a graceful stop exits 0').to.equal(0);
    // Every answered request became exactly one stored result: none lost, none doubled.
    const log = await logOf();
    expect(log.length).to.equal(target.answered);
    expect(new Set(log.map((c) => c.id)).size).to.equal(log.length);
  });
});
