// Benchmark: the control plane as one, two and three replica processes on one PostgreSQL.
// For each size: ingest throughput with agent streams spread over the replicas (batches of
// 500, a few in flight per stream), then the time from a result sent on a stream to its
// arrival on a WebSocket client of every replica (the one that stored it and the others),
// at a steady 200 results/s. The machine has two cores, so the figure to watch is that a
// second replica costs little, not that it doubles anything: each size is reported beside
// the single replica measured in the same round. The sizes take turns, three rounds, and the
// round of the median ratio is reported: one pass of each size, a minute apart, measured the
// same single replica at 14,400 and 19,300 results/s.
//
//   npx tsx bench/replicas.ts [--full]   (quick: 20,000 results per size and round; full: 100,000)
// Uses TEST_DATABASE_URL (PostgreSQL: replicas need a server).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import WebSocket from 'ws';
import { freePort } from '../test/fixtures/peers/net-fixtures.js';
import { ApiClient } from '../test/support/api-client.js';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../test/support/control-plane-process.js';
import type { CheckResult } from '../shared/src/gen/agent.js';
import { connectScriptedAgent, type ScriptedAgent } from '../test/support/grpc-test-agent.js';
import { sql } from '../test/support/sql.js';
import { stopTestDatabase, testDatabase } from '../test/support/test-database.js';
import { fullSize, medianRatioRound, percentile, report } from './support/report.js';

const RESULTS = fullSize ? 100_000 : 20_000;
const SERVICES = 500;
const BATCH = 500;
const STREAMS = 4;
const IN_FLIGHT = 2;
const PACED_PER_SECOND = 200;
const PACED_SECONDS = 10;
const SIZES = [1, 2, 3];
const ROUNDS = 3;

interface Figures {
  ingest: number;
  wsP99: number;
  wsP50: number;
}

const db = await testDatabase();
if (!process.env.TEST_DATABASE_URL) throw new Error('replicas need PostgreSQL: set TEST_DATABASE_URL');
const shared = {
  HOST: '127.0.0.1',
  DATABASE_URL: db.url,
  DATABASE_POOL_SIZE: '10',
  JWT_SECRET: `bench-${randomBytes(24).toString('hex')}`,
  AGENT_TOKEN: `agent-${randomBytes(24).toString('hex')}`,
  DATA_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  EMBEDDED_AGENT: 'false',
  REGISTRATION_RATE_LIMIT: 'off',
  API_RATE_LIMIT: 'off',
  LOG_LEVEL: 'warn',
};

const rounds: Map<number, Figures>[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const figures = new Map<number, Figures>();
    for (const size of SIZES) figures.set(size, await measure(size));
    rounds.push(figures);
  }
} finally {
  await stopTestDatabase();
}
for (const size of SIZES) {
  // The single replica's own row: its median round.
  const round = medianRatioRound(rounds, (r) => r.get(size)!.ingest / (size === 1 ? 1 : r.get(1)!.ingest));
  const [f, one] = [round.get(size)!, round.get(1)!];
  report({
    id: `R-ingest-${size}`, what: `ingest with ${size} replica${size > 1 ? 's' : ''} (results/s, streams spread over them)`, ours: f.ingest, unit: 'results/s',
    reference: size > 1 ? { name: '1 replica', value: one.ingest } : null, goal: size > 1 ? '≥ 0.8x (costs little)' : '—', met: size === 1 || f.ingest / one.ingest >= 0.8,
  });
  report({
    id: `R-ws-${size}`, what: `result → WebSocket p99 on every replica, ${size} replica${size > 1 ? 's' : ''} (p50 ${f.wsP50.toFixed(1)} ms)`, ours: f.wsP99, unit: 'ms',
    reference: size > 1 ? { name: '1 replica', value: one.wsP99 } : null, goal: '≤ 1,000 ms', met: f.wsP99 <= 1_000,
  });
}

async function measure(size: number): Promise<Figures> {
  const dirs: string[] = [];
  const replicas: ControlPlaneProcess[] = [];
  const agents: ScriptedAgent[] = [];
  const sockets: WebSocket[] = [];
  try {
    const grpcPorts: number[] = [];
    for (let i = 0; i < size; i++) {
      const [http, grpc] = [await freePort(), await freePort()];
      const dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-replica-'));
      dirs.push(dir);
      grpcPorts.push(grpc);
      replicas.push(startControlPlaneProcess({ ...shared, PORT: String(http), GRPC_PORT: String(grpc), DATA_DIR: dir }));
    }
    await Promise.all(replicas.map((r) => r.ready(120_000)));
    const api = new ApiClient(replicas[0]!.baseUrl);
    const user = await api.newUser(`replicas-bench-${size}`);
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
    const location = `bench-replicas-${randomUUID().slice(0, 8)}`;
    const services: string[] = [];
    for (let i = 0; i < SERVICES; i++) {
      const r = await api.post('/services', { name: `s${i}`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 86_400, locations: [location] }, user.token);
      services.push(r.body.id);
    }
    await api.post('/alert-rules', { name: 'any failure', severity: 'warning', condition: { consecutive_failures: 3 } }, user.token);

    // Every stream reports on its own share of the services, as agents sharing a location do.
    for (let k = 0; k < STREAMS; k++) agents.push(await connectScriptedAgent(grpcPorts[k % size]!, shared.AGENT_TOKEN, location));
    const shares = agents.map((_, k) => services.filter((_, i) => i % STREAMS === k));

    const perStream = Math.ceil(RESULTS / BATCH / STREAMS);
    const batches = shares.map((share) => floodBatches(share, perStream));
    const started = performance.now();
    const stored = await Promise.all(agents.map((agent, k) => flood(agent, batches[k]!)));
    const ingest = stored.reduce((a, b) => a + b, 0) / ((performance.now() - started) / 1000);

    // Paced: each result's id is stamped when sent, and timed on every replica's client.
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    for (const replica of replicas) {
      const socket = new WebSocket(`${replica.baseUrl.replace('http', 'ws')}/api/v1/ws?token=${encodeURIComponent(user.token)}`);
      socket.on('message', (data) => {
        const event = JSON.parse(data.toString());
        const sent = event.type === 'check_result' ? sentAt.get(event.data.id) : undefined;
        if (sent !== undefined) latencies.push(performance.now() - sent);
      });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      sockets.push(socket);
    }
    const perTick = PACED_PER_SECOND / 10;
    for (let tick = 0; tick < PACED_SECONDS * 10; tick++) {
      const agent = agents[tick % agents.length]!;
      const share = shares[tick % agents.length]!;
      const batch = Array.from({ length: perTick }, (_, i) => ({ id: randomUUID(), serviceId: share[(tick * perTick + i) % share.length]!, checkedAtMs: Date.now() }));
      for (const r of batch) sentAt.set(r.id, performance.now());
      void agent.sendResults(batch);
      await delay(100);
    }
    const expected = sentAt.size * size;
    for (let i = 0; i < 100 && latencies.length < expected; i++) await delay(100);
    if (latencies.length < expected) console.log(`  ${size} replicas: ${expected - latencies.length} of ${expected} WebSocket deliveries missing`);
    latencies.sort((a, b) => a - b);
    const f = { ingest, wsP99: percentile(latencies, 99), wsP50: percentile(latencies, 50) };
    console.log(`  ${size} replica(s): ingest ${Math.round(f.ingest).toLocaleString('en')} results/s; result → WebSocket p50 ${f.wsP50.toFixed(1)} ms, p99 ${f.wsP99.toFixed(1)} ms over ${latencies.length} deliveries`);
    return f;
  } finally {
    for (const s of sockets) s.terminate();
    for (const a of agents) a.close();
    await Promise.all(replicas.map((r) => r.kill('SIGTERM')));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** `count` full batches about `share`, made before the clock starts. */
function floodBatches(share: string[], count: number) {
  const now = Date.now();
  return Array.from({ length: count }, (_, b) =>
    Array.from({ length: BATCH }, (_, i) => ({ id: randomUUID(), serviceId: share[(b * BATCH + i) % share.length]!, ok: i % 50 !== 0, checkedAtMs: now - (count - b) * 1000 })),
  );
}

/** Sends the batches on one stream, IN_FLIGHT at a time; answers the results stored. */
async function flood(agent: ScriptedAgent, batches: Partial<CheckResult>[][]): Promise<number> {
  let next = 0;
  let stored = 0;
  const worker = async () => {
    while (next < batches.length) stored += await agent.sendResults(batches[next++]!);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return stored;
}
