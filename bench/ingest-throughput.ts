// Benchmark: how many results per second the control plane ingests (insert, status, rule
// evaluation, the ack, and the rollups folded from the backlog by the end) from agents
// streaming full batches. Several agent streams each keep a few batches in flight, as the
// agent's publisher does after an outage; like agents sharing a location, each stream reports
// on its own share of the services.
//
//   npx tsx bench/ingest-throughput.ts [--full]   (quick: 50,000 results; full: 200,000; 1,000
//   services, batches of 500, 4 streams)
// Both are measured after a warm-up of 20,000 results sent the same way (the reference gets the
// same): without it the quick run, 1.3 s long, measured V8 compiling the ingest path more than
// the ingest path (0.29x to 0.35x quick against 0.42x at full size).
// Uses TEST_DATABASE_URL (PostgreSQL) or the embedded database. The reference, measured in the
// same run: the same rows in the same batches and streams, as one plain INSERT per batch into a
// table of the same columns (no rollups, status, rules or gRPC).
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { credentials, type ClientDuplexStream } from '@grpc/grpc-js';
import { AgentServiceClient, type AgentMessage, type CheckResult, type ControlMessage } from '../shared/src/gen/agent.js';
import { startTestControlPlane } from '../test/support/control-plane-harness.js';
import pg from 'pg';
import { sql } from '../test/support/sql.js';
import { stopTestDatabase, testDatabase } from '../test/support/test-database.js';
import { fullSize, report } from './support/report.js';

const total = fullSize ? 200_000 : 50_000;
const warmup = 20_000;
const serviceCount = 1000;
const batchSize = 500;
const streams = 4;
const IN_FLIGHT = 4;

// The benchmark creates its services through the API faster than the API limit allows.
const cp = await startTestControlPlane({ env: { API_RATE_LIMIT: 'off' } });
try {
  const user = await cp.api.newUser('ingest-bench');
  await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  const services: string[] = [];
  for (let i = 0; i < serviceCount; i++) {
    const r = await cp.api.post('/services', { name: `s${i}`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 86_400, locations: ['bench'] }, user.token);
    services.push(r.body.id);
  }
  await cp.api.post('/alert-rules', { name: 'any failure', severity: 'warning', condition: { consecutive_failures: 3 } }, user.token);

  const batchesPerStream = (results: number) => Math.ceil(results / batchSize / streams);
  const shares = Array.from({ length: streams }, (_, k) => services.filter((_, i) => i % streams === k));
  const ingest = async (batches: number) => {
    const accepted = await Promise.all(shares.map((share) => stream(share, batches)));
    // Rollups are folded from the backlog in the background; the clock stops when they are done.
    await cp.running.settleRollups();
    return accepted.reduce((a, b) => a + b, 0);
  };
  const warmed = await ingest(batchesPerStream(warmup));
  const started = performance.now();
  const stored = await ingest(batchesPerStream(total));
  const seconds = (performance.now() - started) / 1000;
  const perSecond = stored / seconds;
  const [rolled] = await sql<{ n: string }>('select sum(total_checks) as n from check_rollups_day where service_id = any($1::uuid[])', [services]);
  if (Number(rolled!.n) !== warmed + stored) throw new Error(`the day rollups count ${rolled!.n} results, not ${warmed + stored}`);
  console.log(`${stored.toLocaleString('en')} results in ${seconds.toFixed(1)} s over ${streams} streams (batches of ${batchSize}, ${services.length} services): ${Math.round(perSecond).toLocaleString('en')} results/s`);
  await sql('drop table if exists bench_plain_results');
  await sql('create table bench_plain_results (like check_results including defaults including indexes)');
  await plainInserts(shares, batchesPerStream(warmup));
  const plain = await plainInserts(shares, batchesPerStream(total));
  await sql('drop table bench_plain_results');
  report({
    id: 'P3', what: 'ingest on PostgreSQL (status, rollups and rules included)', ours: perSecond, unit: 'results/s',
    reference: { name: 'plain batched INSERT', value: plain }, goal: '≥ 0.5x', met: perSecond / plain >= 0.5,
  });

  /** The reference: each stream's batches as single INSERTs into bench_plain_results from one JSON parameter, on its own connection. */
  async function plainInserts(byStream: string[][], batches: number): Promise<number> {
    const { url } = await testDatabase();
    const t0 = performance.now();
    const counts = await Promise.all(
      byStream.map(async (share) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          for (let b = 0; b < batches; b++) {
            const now = Date.now();
            const rows = Array.from({ length: batchSize }, (_, i) => ({
              id: randomUUID(), service_id: share[(b * batchSize + i) % share.length], organization_id: user.orgId, status: 'GREEN',
              response_time_ms: 20 + Math.random() * 200, message: 'ok', location: 'bench', agent_id: 'bench-agent', checked_at: new Date(now - (batchSize - i)), ad_hoc: false, details: {},
            }));
            await client.query(
              `insert into bench_plain_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at, ad_hoc, details)
               select * from json_to_recordset($1::json) as v (id uuid, service_id uuid, organization_id uuid, status text, response_time_ms float8,
                 message text, location text, agent_id text, checked_at timestamptz, ad_hoc boolean, details jsonb)`,
              [JSON.stringify(rows)],
            );
          }
          return batches * batchSize;
        } finally {
          await client.end();
        }
      }),
    );
    return counts.reduce((a, b) => a + b, 0) / ((performance.now() - t0) / 1000);
  }

  /** One agent stream sending `batches` batches about `share`, IN_FLIGHT at a time; answers results accepted. */
  async function stream(share: string[], batches: number): Promise<number> {
    const client = new AgentServiceClient(`127.0.0.1:${cp.running.grpcPort}`, credentials.createInsecure());
    const call: ClientDuplexStream<AgentMessage, ControlMessage> = client.connect();
    let sent = 0;
    let acked = 0;
    let accepted = 0;
    const done = new Promise<void>((resolve, reject) => {
      call.on('error', reject);
      call.on('data', (m: ControlMessage) => {
        if (m.payload?.$case === 'welcome') while (sent < Math.min(IN_FLIGHT, batches)) sendOne();
        if (m.payload?.$case !== 'ack') return;
        acked += 1;
        accepted += m.payload.value.accepted;
        if (sent < batches) sendOne();
        if (acked === batches) resolve();
      });
    });
    function sendOne() {
      sent += 1;
      const now = Date.now();
      const results = Array.from({ length: batchSize }, (_, i): CheckResult => ({
        id: randomUUID(),
        serviceId: share[(sent * batchSize + i) % share.length]!,
        assignmentVersion: 1,
        ok: Math.random() > 0.01,
        responseTimeMs: 20 + Math.random() * 200,
        message: 'ok',
        checkedAtMs: now - (batchSize - i),
        details: {},
        adHoc: false,
        degraded: false,
      }));
      call.write({ payload: { $case: 'results', value: { batchId: randomUUID(), results } } });
    }
    call.write({ payload: { $case: 'hello', value: { agentId: randomUUID(), token: cp.running.agentToken, version: 'bench', location: 'bench', capabilities: ['HTTP'], hostname: 'bench' } } });
    await done;
    call.cancel();
    client.close();
    return accepted;
  }
} finally {
  await cp.stop();
  await stopTestDatabase();
}
