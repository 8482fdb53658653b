// Chaos on a PostgreSQL cluster of the test's own, while an agent process streams results:
// the database stopped for 30 s, then the control plane SIGKILLed twice. Every check the
// target answered must be stored exactly once. Each scenario prints its figures (the team
// copies them into the reliability report) before asserting, so a failure still shows them.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import pg from 'pg';
import { createPrivatePostgres, type PrivatePostgres } from '../fixtures/private-postgres.js';
import { freePort, tcpListener, type Listener } from '../fixtures/peers/net-fixtures.js';
import { ApiClient, type TestUser } from '../support/api-client.js';
import { startAgentProcess, type AgentProcess } from '../support/agent-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../support/control-plane-process.js';
import { poll } from '../support/poll.js';
import { spooledResultCount } from '../support/spooled-results.js';

const SERVICES = 20;
const INTERVAL_SECONDS = 5; // the smallest interval a service may have
const OUTAGE_MS = 30_000;
const KILLS = 2;
const DOWN_AFTER_KILL_MS = 5_000;

interface Probe {
  path: string;
  status: number | 'timeout' | 'error';
  ms: number;
  retryAfter: string | null;
  jsonError: boolean;
}

/** One REST call that never throws: a hang past 10 s is recorded as 'timeout'. */
async function probe(baseUrl: string, route: string, token?: string): Promise<Probe> {
  const started = Date.now();
  try {
    const res = await fetch(`${baseUrl}/api/v1${route}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    let jsonError = false;
    try {
      jsonError = typeof JSON.parse(text).error === 'string';
    } catch {
      // not JSON: jsonError stays false and the assertion names it
    }
    return { path: route, status: res.status, ms: Date.now() - started, retryAfter: res.headers.get('retry-after'), jsonError };
  } catch (err) {
    return { path: route, status: (err as Error).name === 'TimeoutError' ? 'timeout' : 'error', ms: Date.now() - started, retryAfter: null, jsonError: false };
  }
}

/** "GET /services: 503 Retry-After 5 JSON x31 (max 12 ms)", one entry per kind of answer. */
function summarize(probes: Probe[]): string {
  const groups = new Map<string, number[]>();
  for (const p of probes) {
    const key = `GET ${p.path}: ${p.status}${p.retryAfter ? ` Retry-After ${p.retryAfter}` : ''}${p.jsonError ? ' JSON' : ''}`;
    groups.set(key, [...(groups.get(key) ?? []), p.ms]);
  }
  return [...groups].map(([key, ms]) => `${key} x${ms.length} (max ${Math.max(...ms)} ms)`).join(', ');
}

async function agentGauge(statusPort: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${statusPort}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

describe('e2e: chaos on a private PostgreSQL cluster', function () {
  let cluster: PrivatePostgres | undefined;
  let databaseDown = false;
  let cp: TestControlPlane | undefined;
  let cpProcess: ControlPlaneProcess | undefined;
  let agent: AgentProcess | undefined;
  let target: Listener | undefined;
  const dirs: string[] = [];

  before(async function () {
    this.timeout(60_000);
    cluster = await createPrivatePostgres(this);
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      if (agent) console.log(`agent output:\n${agent.output().slice(-4000)}`);
      if (cpProcess) console.log(`control plane output:\n${cpProcess.output().slice(-4000)}`);
    }
    await agent?.kill('SIGKILL');
    await cpProcess?.kill('SIGKILL');
    // A control plane stops cleanly only with its database there (a test may fail mid-outage).
    if (databaseDown) cluster?.start();
    databaseDown = false;
    await cp?.stop();
    await target?.close();
    agent = cpProcess = cp = target = undefined;
  });
  after(() => {
    cluster?.destroy();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const query = async <T>(text: string, params: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({ connectionString: cluster!.url });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  };
  const countResults = async (serviceIds: string[]) =>
    (await query<{ stored: number; distinct_ids: number }>('select count(*)::int as stored, count(distinct id)::int as distinct_ids from check_results where service_id = any($1::uuid[])', [serviceIds]))[0]!;

  const tempDir = (label: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), `outpost-chaos-${label}-`));
    dirs.push(dir);
    return dir;
  };

  /** ~20 TCP services on one counting listener: each check is one accepted connection. */
  async function createServices(api: ApiClient, user: TestUser, location: string): Promise<string[]> {
    await query(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
    target = await tcpListener();
    const ids: string[] = [];
    for (let i = 0; i < SERVICES; i++) {
      const created = await api.post('/services', { name: `chaos-${i}`, endpoint: target.endpoint, check_type: 'TCP', check_interval_seconds: INTERVAL_SECONDS, locations: [location] }, user.token);
      expect(created.status, created.text).to.equal(201);
      ids.push(created.body.id);
    }
    return ids;
  }

  async function startAgent(grpcPort: number, token: string, location: string) {
    const statusPort = await freePort();
    const dataDir = tempDir('agent');
    agent = startAgentProcess({ server: `127.0.0.1:${grpcPort}`, token, location, dataDir, extra: ['--status-addr', `127.0.0.1:${statusPort}`] });
    return { statusPort, dataDir };
  }

  /** Polls until the stored count grows past `than`: results are flowing into the database. */
  const resultsGrow = async (ids: string[], than: number, timeoutMs = 20_000) =>
    poll(async () => (await countResults(ids)).stored > than, { what: `more than ${than} stored results`, timeoutMs, intervalMs: 200 });

  const spoolDrained = (statusPort: number, timeoutMs: number) =>
    poll(async () => (await agentGauge(statusPort, 'outpost_agent_spool_results')) === 0, { what: 'the agent spool drained', timeoutMs, intervalMs: 100 });

  /** Graceful agent stop, then the target: expected = connections the target accepted. */
  async function tally(ids: string[], agentDir: string) {
    const agentExit = await agent!.kill('SIGTERM');
    await target!.close();
    const expected = target!.accepted();
    target = undefined;
    const { stored, distinct_ids: distinct } = await countResults(ids);
    return { agentExit, expected, stored, distinct, duplicates: stored - distinct, leftInSpool: spooledResultCount(path.join(agentDir, 'spool')) };
  }

  function expectExactlyOnce(t: Awaited<ReturnType<typeof tally>>) {
    expect(t.agentExit, 'a graceful agent stop exits 0').to.equal(0);
    expect(t.expected, 'checks ran').to.be.greaterThan(SERVICES);
    expect(t.distinct, `distinct stored results vs checks the target answered (${t.leftInSpool} left in the spool)`).to.equal(t.expected);
    expect(t.stored, 'stored rows vs distinct result ids').to.equal(t.distinct);
  }

  it('loses and doubles no result, and answers REST with 503, while the database is stopped for 30 s', async function () {
    this.timeout(180_000);
    const location = 'chaos-db';
    const grpcPort = await freePort();
    // The harness sizes the pool for the shared test database; this one is a real server.
    cp = await startTestControlPlane({ grpcPort, env: { DATABASE_URL: cluster!.url, DATABASE_POOL_SIZE: '10' } });
    const user = await cp.api.newUser('chaos-db');
    const ids = await createServices(cp.api, user, location);
    const { statusPort, dataDir } = await startAgent(grpcPort, cp.running.agentToken, location);
    await resultsGrow(ids, SERVICES);

    cluster!.stop();
    databaseDown = true;
    const outageStarted = Date.now();
    const probes: Probe[] = [];
    while (Date.now() - outageStarted < OUTAGE_MS) {
      probes.push(await probe(cp.baseUrl, '/services', user.token), await probe(cp.baseUrl, '/ready'));
      await delay(500); // pacing only: about two calls a second for the whole outage
    }
    cluster!.start();
    databaseDown = false;
    const back = Date.now();
    const outageMs = back - outageStarted;

    await poll(async () => (await probe(cp!.baseUrl, '/services', user.token)).status === 200, { what: 'REST answering 200 again', timeoutMs: 30_000, intervalMs: 200 });
    const restBackMs = Date.now() - back;
    // Batches that arrived during the outage are stored as the gateway retries them (every second).
    await spoolDrained(statusPort, 60_000);
    const drainedMs = Date.now() - back;
    const t = await tally(ids, dataDir);

    console.log(`      chaos db-outage: outage ${seconds(outageMs)}; ${probes.length} REST calls during it: ${summarize(probes)}`);
    console.log(`      chaos db-outage: REST 200 again ${seconds(restBackMs)} after the database returned; spool drained after ${seconds(drainedMs)}`);
    console.log(`      chaos db-outage: results expected ${t.expected}, stored ${t.stored}, distinct ${t.distinct}, duplicates ${t.duplicates}, left in spool ${t.leftInSpool}`);

    for (const p of probes) {
      expect(p.status, `GET ${p.path} during the outage`).to.equal(503);
      if (p.path === '/services') {
        expect(p.retryAfter, 'Retry-After on a 503').to.match(/^\d+$/);
        expect(p.jsonError, 'a JSON {"error"} body').to.equal(true);
      }
    }
    expectExactlyOnce(t);
  });

  it('loses and doubles no result when the control plane process is SIGKILLed twice', async function () {
    this.timeout(180_000);
    const location = 'chaos-kill';
    const [port, grpcPort] = [await freePort(), await freePort()];
    const env = {
      DATABASE_URL: cluster!.url,
      PORT: String(port),
      GRPC_PORT: String(grpcPort),
      HOST: '127.0.0.1',
      EMBEDDED_AGENT: 'false',
      AGENT_TOKEN: 'chaos-agent-token-0123456789abcdef',
      JWT_SECRET: 'chaos-jwt-secret-0123456789abcdefghijklmnop',
      DATA_DIR: tempDir('cp'),
      LOG_LEVEL: 'warn',
    };
    cpProcess = startControlPlaneProcess(env);
    await cpProcess.ready();
    const api = new ApiClient(cpProcess.baseUrl);
    const user = await api.newUser('chaos-kill');
    const ids = await createServices(api, user, location);
    const { statusPort, dataDir } = await startAgent(grpcPort, env.AGENT_TOKEN, location);
    await resultsGrow(ids, SERVICES);

    const reconnects: { ready: number; connected: number; results: number }[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      await resultsGrow(ids, (await countResults(ids)).stored); // results are flowing at the kill
      await cpProcess.kill('SIGKILL');
      const killed = Date.now();
      await poll(async () => (await agentGauge(statusPort, 'outpost_agent_connected')) === 0, { what: 'the agent seeing the loss', timeoutMs: 10_000 });
      await delay(Math.max(0, DOWN_AFTER_KILL_MS - (Date.now() - killed))); // the outage itself
      const storedBefore = (await countResults(ids)).stored;

      cpProcess = startControlPlaneProcess(env);
      const started = Date.now();
      // Watched together: the agent may be back before /ready, since gRPC listens first.
      const at = (p: Promise<unknown>) => p.then(() => Date.now() - started);
      const [ready, connected, results] = await Promise.all([
        at(cpProcess.ready()),
        at(poll(async () => (await agentGauge(statusPort, 'outpost_agent_connected')) === 1, { what: 'the agent connected again', timeoutMs: 60_000, intervalMs: 100 })),
        at(resultsGrow(ids, storedBefore, 60_000)),
      ]);
      reconnects.push({ ready, connected, results });
    }
    await spoolDrained(statusPort, 60_000);
    const t = await tally(ids, dataDir);

    reconnects.forEach((r, i) =>
      console.log(`      chaos kill-9 #${i + 1}: ready ${seconds(r.ready)} after the restart; agent connected ${seconds(r.connected - r.ready)} and results stored ${seconds(r.results - r.ready)} after ready`),
    );
    console.log(`      chaos kill-9: results expected ${t.expected}, stored ${t.stored}, distinct ${t.distinct}, duplicates ${t.duplicates}, left in spool ${t.leftInSpool}`);
    expectExactlyOnce(t);
  });
});
