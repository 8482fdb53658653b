// Three control-plane processes on one PostgreSQL behind HAProxy (HTTP and gRPC), two agent
// processes of one location connected to different replicas, and a WebSocket client on each
// replica: services are checked by exactly one agent, every client sees each result of its
// organization once, run-now works through any replica, and after `kill -9` of a replica
// the agents reconnect, every service keeps being checked, and no result is lost or doubled
// (counted against the connections the target accepted) nor any alert opened twice; an agent
// that knew only the dead replica shows offline once that replica's lease has run out.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import WebSocket from 'ws';
import { freePort, refusedEndpoint, tcpListener, type Listener } from '../fixtures/peers/net-fixtures.js';
import { peerBinary } from '../fixtures/peers/require-peer.js';
import { startAgentProcess, type AgentProcess } from '../support/agent-process.js';
import { ApiClient, type TestUser } from '../support/api-client.js';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../support/control-plane-process.js';
import { HAPROXY_BINARY, startHaproxy, type HaproxyProcess } from '../support/haproxy-process.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { requireServerDatabase, testDatabase } from '../support/test-database.js';

const SERVICES = 12;
const INTERVAL_SECONDS = 5;

interface Replica {
  name: string;
  http: number;
  grpc: number;
  process: ControlPlaneProcess;
}

interface Feed {
  socket: WebSocket;
  results: string[];
  closed: boolean;
}

function openFeed(baseUrl: string, token: string): Promise<Feed> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/api/v1/ws?token=${encodeURIComponent(token)}`);
    const feed: Feed = { socket, results: [], closed: false };
    socket.on('message', (data) => {
      const event = JSON.parse(data.toString());
      if (event.type === 'check_result') feed.results.push(event.data.id);
    });
    socket.on('close', () => (feed.closed = true));
    socket.once('open', () => resolve(feed));
    socket.once('error', reject);
  });
}

const duplicatesIn = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

describe('e2e: three replicas behind HAProxy', function () {
  this.timeout(240_000);
  const dirs: string[] = [];
  const replicas: Replica[] = [];
  const agents: AgentProcess[] = [];
  const feeds: Feed[] = [];
  let haproxy: HaproxyProcess | undefined;
  let target: Listener | undefined;

  const tempDir = (label: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), `outpost-replicas-${label}-`));
    dirs.push(dir);
    return dir;
  };

  before(async function () {
    peerBinary(HAPROXY_BINARY, 'haproxy', this);
    await requireServerDatabase(this, 'a session per replica for the cluster bus to listen on, and replicas that live on when one dies');
  });
  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const r of replicas) console.log(`${r.name} output:\n${r.process.output().slice(-3000)}`);
    for (const [i, a] of agents.entries()) console.log(`agent ${i} output:\n${a.output().slice(-3000)}`);
  });
  after(async () => {
    for (const f of feeds) f.socket.terminate();
    await Promise.all(agents.map((a) => a.kill('SIGKILL')));
    await Promise.all(replicas.map((r) => r.process.kill('SIGKILL')));
    await haproxy?.stop();
    await target?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('behaves as one control plane, through the death of a replica', async () => {
    const db = await testDatabase();
    const shared = {
      HOST: '127.0.0.1',
      DATABASE_URL: db.url,
      DATABASE_POOL_SIZE: '5',
      JWT_SECRET: `replicas-${randomBytes(24).toString('hex')}`,
      AGENT_TOKEN: `agent-${randomBytes(24).toString('hex')}`,
      DATA_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      EMBEDDED_AGENT: 'false',
      REGISTRATION_RATE_LIMIT: 'off',
      LOG_LEVEL: 'warn',
    };
    for (const name of ['r1', 'r2', 'r3']) {
      const [http, grpc] = [await freePort(), await freePort()];
      const process = startControlPlaneProcess({ ...shared, PORT: String(http), GRPC_PORT: String(grpc), DATA_DIR: tempDir(name) });
      replicas.push({ name, http, grpc, process });
    }
    await Promise.all(replicas.map((r) => r.process.ready(120_000)));
    const [r1, r2, r3] = replicas as [Replica, Replica, Replica];

    // The deployed deploy/haproxy/haproxy.cfg, with a server line per replica.
    haproxy = await startHaproxy(replicas, await freePort(), await freePort());
    const [lbHttp, lbGrpc] = [haproxy.httpPort, haproxy.grpcPort];
    const lb = new ApiClient(`http://127.0.0.1:${lbHttp}`);
    await poll(async () => (await lb.get('/health').catch(() => ({ status: 0 }))).status === 200, { what: 'HAProxy in front of the replicas' });

    // Everything below goes through HAProxy unless a replica is named.
    const user: TestUser = await lb.newUser('replicas-e2e');
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
    const api = (r: Replica) => new ApiClient(r.process.baseUrl);
    for (const r of replicas) feeds.push(await openFeed(r.process.baseUrl, user.token));
    const [feedOn1, feedOn2, feedOn3] = feeds as [Feed, Feed, Feed];

    const location = `replicas-${randomUUID().slice(0, 8)}`;
    const statusPorts: number[] = [];
    const agentDirs: string[] = [];
    for (const home of [r1, r2]) {
      const statusPort = await freePort();
      statusPorts.push(statusPort);
      agentDirs.push(tempDir('agent'));
      // Its own replica first, HAProxy when that one is gone.
      agents.push(startAgentProcess({
        server: `127.0.0.1:${home.grpc},127.0.0.1:${lbGrpc}`,
        token: shared.AGENT_TOKEN,
        location,
        dataDir: agentDirs.at(-1)!,
        extra: ['--status-addr', `127.0.0.1:${statusPort}`],
      }));
    }
    // A registered agent of another location that knows only the replica about to be killed.
    const registered = (await lb.post('/agents', { name: 'r1-only', location: `${location}-solo` }, user.token)).body;
    agents.push(startAgentProcess({ server: `127.0.0.1:${r1.grpc}`, token: registered.token, location: registered.location, dataDir: tempDir('solo') }));
    const statusOf = async (id: string) => ((await lb.get('/agents', user.token)).body as { id: string; status: string }[]).find((a) => a.id === id)?.status;
    await poll(async () => (await statusOf(registered.id)) === 'online', { what: 'the registered agent online', timeoutMs: 60_000 });

    const sessions = () => sql<{ agent_id: string; replica_id: string }>('select agent_id, replica_id from agent_sessions where location = $1', [location]);
    await poll(async () => new Set((await sessions()).map((s) => s.replica_id)).size === 2, { what: 'both agents online, on two replicas', timeoutMs: 60_000 });

    target = await tcpListener();
    const resultsOf = (ids: string[]) =>
      sql<{ id: string; service_id: string; agent_id: string; checked_at: Date }>('select id, service_id, agent_id, checked_at from check_results where service_id = any($1::uuid[])', [ids]);

    const created = Date.now();
    const first = await api(r3).post('/services', { name: 'first', endpoint: target.endpoint, check_type: 'TCP', check_interval_seconds: INTERVAL_SECONDS, locations: [location] }, user.token);
    expect(first.status, first.text).to.equal(201);
    await poll(async () => (await resultsOf([first.body.id])).length > 0, { what: 'the first result of a service created through a replica', timeoutMs: 10_000, intervalMs: 50 });
    console.log(`      replicas: created through one replica, first result stored after ${Date.now() - created} ms`);

    const ids: string[] = [first.body.id];
    for (let i = 1; i < SERVICES; i++) {
      const through = [lb, api(r1), api(r2), api(r3)][i % 4]!;
      const r = await through.post('/services', { name: `svc-${i}`, endpoint: target.endpoint, check_type: 'TCP', check_interval_seconds: INTERVAL_SECONDS, locations: [location] }, user.token);
      expect(r.status, r.text).to.equal(201);
      ids.push(r.body.id);
    }
    const failing = (await api(r2).post('/services', { name: 'down', endpoint: await refusedEndpoint(), check_type: 'TCP', check_interval_seconds: INTERVAL_SECONDS, locations: [location] }, user.token)).body;
    const rule = await api(r3).post('/alert-rules', { name: 'down', severity: 'critical', service_id: failing.id, condition: { statuses: ['RED'], consecutive_failures: 1 } }, user.token);
    expect(rule.status, rule.text).to.equal(201);

    // A replica that heard of the second agent a moment late (its view refreshes every 2 s on a
    // loaded machine) may hand a service over once; what must hold is the settled placement.
    await poll(async () => new Set((await resultsOf(ids)).map((r) => r.agent_id)).size === 2, { what: 'results from both agents', timeoutMs: 30_000 });
    await new Promise((r) => setTimeout(r, 3_000)); // one membership refresh, and a margin
    const settled = new Date();
    const since = async () => (await resultsOf(ids)).filter((r) => r.checked_at > settled);
    await poll(async () => new Set((await since()).map((r) => r.service_id)).size === SERVICES, { what: 'a result for every service once placement settled', timeoutMs: 30_000 });
    const owners = new Map<string, Set<string>>();
    for (const r of await since()) owners.set(r.service_id, (owners.get(r.service_id) ?? new Set()).add(r.agent_id));
    expect([...owners.values()].filter((set) => set.size !== 1), 'services checked by more than one agent').to.deep.equal([]);
    expect(new Set([...owners.values()].flatMap((set) => [...set])).size, 'both agents have a share').to.equal(2);

    const quiet = (await api(r1).post('/services', { name: 'hourly', endpoint: target.endpoint, check_type: 'TCP', check_interval_seconds: 3600, locations: [location] }, user.token)).body;
    await poll(async () => (await resultsOf([quiet.id])).length === 1, { what: 'the hourly service checked once' });
    expect((await api(r2).post(`/services/${quiet.id}/check`, {}, user.token)).status).to.equal(202);
    await poll(async () => (await resultsOf([quiet.id])).length === 2, { what: 'run-now through another replica', timeoutMs: 10_000 });

    // kill -9 of the replica holding the first agent's stream, while results flow.
    const before = (await resultsOf(ids)).length;
    await poll(async () => (await resultsOf(ids)).length > before, { what: 'results flowing' });
    const firstAgent = readFileSync(path.join(agentDirs[0]!, 'agent-id'), 'utf8').trim();
    const deadReplica = (await sessions()).find((s) => s.agent_id === firstAgent)!.replica_id;
    await r1.process.kill('SIGKILL');
    const killedAt = Date.now();
    await poll(async () => (await sessions()).filter((s) => s.replica_id !== deadReplica).length === 2 && (await Promise.all(statusPorts.map(connected))).every(Boolean), {
      what: 'both agents connected to live replicas',
      timeoutMs: 30_000,
    });
    console.log(`      replicas: both agents connected again ${Date.now() - killedAt} ms after kill -9 of a replica`);
    await poll(async () => (await statusOf(registered.id)) === 'offline', { what: "the dead replica's agent offline once its lease ran out", timeoutMs: 20_000 });
    console.log(`      replicas: the agent left on the dead replica shown offline ${Date.now() - killedAt} ms after the kill`);
    const checkedAfterKill = async () => new Set((await resultsOf(ids)).filter((r) => r.checked_at.getTime() > killedAt + 1_000).map((r) => r.service_id)).size;
    await poll(async () => (await checkedAfterKill()) === SERVICES, { what: 'every service checked again after the kill', timeoutMs: 30_000 });
    console.log(`      replicas: every service checked again ${Date.now() - killedAt} ms after the kill`);

    // Stop the agents gracefully (they deliver what they hold), then count.
    for (const agent of agents.slice(0, 2)) expect(await agent.kill('SIGTERM'), 'a graceful agent stop exits 0').to.equal(0);
    const expected = target.accepted();
    // Every service on the target is counted, the hourly one too (checked again wherever it moves).
    const stored = await resultsOf([...ids, quiet.id]);
    const distinct = new Set(stored.map((r) => r.id));
    console.log(`      replicas: checks the target answered ${expected}, stored ${stored.length}, distinct ${distinct.size}`);
    expect(distinct.size, 'stored results vs checks the target answered').to.equal(expected);
    expect(stored.length, 'stored rows vs distinct result ids').to.equal(distinct.size);

    const alerts = await sql('select id from alerts where service_id = $1', [failing.id]);
    expect(alerts, 'alerts of the failing service').to.have.length(1);

    await delay(500);
    const all = stored.map((r) => r.id);
    for (const [name, feed] of [['r2', feedOn2], ['r3', feedOn3]] as const) {
      const seen = feed.results.filter((id) => distinct.has(id));
      expect(duplicatesIn(seen), `results seen twice by the client on ${name}`).to.deep.equal([]);
      expect(all.filter((id) => !seen.includes(id)), `results the client on ${name} never saw`).to.deep.equal([]);
    }
    expect(feedOn1.closed, "the killed replica's client was disconnected").to.equal(true);
    expect(duplicatesIn(feedOn1.results), 'results seen twice by the client on r1').to.deep.equal([]);
  });
});

async function connected(statusPort: number): Promise<boolean> {
  const text = await (await fetch(`http://127.0.0.1:${statusPort}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  return /^outpost_agent_connected 1$/m.test(text);
}
