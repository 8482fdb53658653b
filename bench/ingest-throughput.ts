// Benchmark: how many results per second the control plane ingests (insert, status, rule
// evaluation, the ack, and the rollups folded from the backlog by the end) from agents
// streaming full batches. Several agent streams each keep a few batches in flight, as the
// agent's publisher does after an outage; like agents sharing a location, each stream reports
// on its own share of the services. The agents run in this process, so their work is kept
// out of the measurement as it would be on their own hosts: they connect (and receive their
// assignments) before the warm-up, and their batches are encoded before the clock starts.
//
//   npx tsx bench/ingest-throughput.ts [--full]   (quick: 50,000 results; full: 200,000; 1,000
//   services in 50 tagged groups, one rule for every service, a rule by selector per group, 5
//   groups silenced; batches of 500, 4 streams)
// The reference, measured in the same run: the same rows in the same batches and streams, as
// one plain INSERT per batch into a table of the same columns (no rollups, status, rules or
// gRPC). After a warm-up of 20,000 results each (without it the quick run measured V8
// compiling the ingest path more than the ingest path), ours and the reference take turns
// three times and the round of the median ratio is reported: a single quick reference run,
// half a second long, varied by a third from run to run.
// Uses TEST_DATABASE_URL (PostgreSQL) or the embedded database.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { CheckResult } from '../shared/src/gen/agent.js';
import { startTestControlPlane } from '../test/support/control-plane-harness.js';
import pg from 'pg';
import { sql } from '../test/support/sql.js';
import { stopTestDatabase, testDatabase } from '../test/support/test-database.js';
import { connectStreamingAgent, encodeAgentMessage, type StreamingAgent } from './support/streaming-agent.js';
import { fullSize, medianRatioRound, report } from './support/report.js';

const total = fullSize ? 200_000 : 50_000;
const warmup = 20_000;
const serviceCount = 1000;
const batchSize = 500;
const streams = 4;
const IN_FLIGHT = 4;
/** Services are tagged in this many groups, each with a rule by selector; a tenth of the groups are silenced. */
const GROUPS = 50;
/** Ours and the reference take turns, this many times each. */
const ROUNDS = 3;

// The benchmark creates its services through the API faster than the API limit allows.
const cp = await startTestControlPlane({ env: { API_RATE_LIMIT: 'off' } });
try {
  const user = await cp.api.newUser('ingest-bench');
  await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  const services: string[] = [];
  for (let i = 0; i < serviceCount; i++) {
    const r = await cp.api.post('/services', { name: `s${i}`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 86_400, locations: ['bench'], tags: [`group-${i % GROUPS}`], environment: 'production' }, user.token);
    services.push(r.body.id);
  }
  await cp.api.post('/alert-rules', { name: 'any failure', severity: 'warning', condition: { consecutive_failures: 3 } }, user.token);
  // Issue 44: measured with what came since (issue 39's rules by selector and silences; the audit log, which every change above wrote to).
  for (let k = 0; k < GROUPS; k++) {
    const rule = await cp.api.post('/alert-rules', { name: `group ${k} fails`, severity: 'warning', condition: { selector: { tags: [`group-${k}`], environment: 'production' } } }, user.token);
    if (rule.status !== 201) throw new Error(`rule by selector: ${rule.status} ${rule.text}`);
  }
  for (let k = 0; k < GROUPS / 10; k++) {
    const silence = await cp.api.post('/silences', { matchers: { tags: [`group-${k}`] }, ends_at: new Date(Date.now() + 86_400_000).toISOString(), comment: 'under repair' }, user.token);
    if (silence.status !== 201) throw new Error(`silence: ${silence.status} ${silence.text}`);
  }

  const batchesPerStream = (results: number) => Math.ceil(results / batchSize / streams);
  const shares = Array.from({ length: streams }, (_, k) => services.filter((_, i) => i % streams === k));
  // Each result a millisecond after the one before (ours and the reference's), the last about
  // now: batches encoded later come later, so every result moves its service's state.
  let nextCheckedAt = Date.now() - 2 * (warmup + ROUNDS * total);
  const agents = await Promise.all(shares.map(() => connectStreamingAgent(cp.running.grpcPort, cp.running.agentToken, IN_FLIGHT)));
  await sql('drop table if exists bench_plain_results');
  await sql('create table bench_plain_results (like check_results including defaults including indexes)');
  const ours: number[] = [];
  const plain: number[] = [];
  let acknowledged = 0;
  try {
    acknowledged += await ingest(agents, shares.map((share) => encodedBatches(share, batchesPerStream(warmup))));
    await plainInserts(shares, batchesPerStream(warmup));
    for (let round = 0; round < ROUNDS; round++) {
      const batches = shares.map((share) => encodedBatches(share, batchesPerStream(total)));
      const started = performance.now();
      const stored = await ingest(agents, batches);
      const seconds = (performance.now() - started) / 1000;
      acknowledged += stored;
      ours.push(stored / seconds);
      plain.push(await plainInserts(shares, batchesPerStream(total)));
      console.log(`round ${round + 1}: ${stored.toLocaleString('en')} results in ${seconds.toFixed(2)} s, ${Math.round(ours[round]!).toLocaleString('en')} results/s; plain INSERT ${Math.round(plain[round]!).toLocaleString('en')} results/s`);
    }
  } finally {
    for (const agent of agents) agent.close();
    await sql('drop table bench_plain_results');
  }
  const [rolled] = await sql<{ n: string }>('select sum(total_checks) as n from check_rollups_day where service_id = any($1::uuid[])', [services]);
  if (Number(rolled!.n) !== acknowledged) throw new Error(`the day rollups count ${rolled!.n} results, not ${acknowledged}`);
  // A round's two figures were measured a second apart, in the same conditions.
  const typical = medianRatioRound(ours.map((value, k) => ({ value, reference: plain[k]! })), (r) => r.value / r.reference);
  report({
    id: 'P3', what: 'ingest on PostgreSQL (status, rollups, rules by service and by selector, silences included)', ours: typical.value, unit: 'results/s',
    reference: { name: 'plain batched INSERT', value: typical.reference }, goal: '≥ 0.5x', met: typical.value / typical.reference >= 0.5,
  });

  /** Every agent sends its batches at once; answers how many results the acks counted, once the rollups are folded from the backlog too. */
  async function ingest(agents: StreamingAgent[], batches: Buffer[][]): Promise<number> {
    const accepted = await Promise.all(agents.map((agent, k) => agent.send(batches[k]!)));
    await cp.running.settleRollups();
    return accepted.reduce((a, b) => a + b, 0);
  }

  /**
   * The reference: each stream's batches as single INSERTs into bench_plain_results from one
   * JSON parameter, on its own connection. As for ours, the connections are made and the rows
   * built before the clock starts; turning them into the statement's parameter is timed.
   */
  async function plainInserts(byStream: string[][], batches: number): Promise<number> {
    const { url } = await testDatabase();
    const clients = await Promise.all(
      byStream.map(async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        return client;
      }),
    );
    try {
      const rowsByStream = byStream.map((share) =>
        Array.from({ length: batches }, (_, b) =>
          Array.from({ length: batchSize }, (_, i) => ({
            id: randomUUID(), service_id: share[(b * batchSize + i) % share.length], organization_id: user.orgId, status: 'GREEN',
            response_time_ms: 20 + Math.random() * 200, message: 'ok', location: 'bench', agent_id: 'bench-agent', checked_at: new Date(nextCheckedAt++), ad_hoc: false, details: {},
          })),
        ),
      );
      const t0 = performance.now();
      await Promise.all(
        clients.map(async (client, k) => {
          for (const rows of rowsByStream[k]!) {
            await client.query(
              `insert into bench_plain_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at, ad_hoc, details)
               select * from json_to_recordset($1::json) as v (id uuid, service_id uuid, organization_id uuid, status text, response_time_ms float8,
                 message text, location text, agent_id text, checked_at timestamptz, ad_hoc boolean, details jsonb)`,
              [JSON.stringify(rows)],
            );
          }
        }),
      );
      return (byStream.length * batches * batchSize) / ((performance.now() - t0) / 1000);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  }

  /** The `results` messages of `batches` full batches about `share`, encoded as an agent sends them. */
  function encodedBatches(share: string[], batches: number): Buffer[] {
    return Array.from({ length: batches }, (_, b) => {
      const results = Array.from({ length: batchSize }, (_, i): CheckResult => ({
        id: randomUUID(),
        serviceId: share[(b * batchSize + i) % share.length]!,
        assignmentVersion: 1,
        ok: Math.random() > 0.01,
        responseTimeMs: 20 + Math.random() * 200,
        message: 'ok',
        checkedAtMs: nextCheckedAt++,
        details: {},
        adHoc: false,
        degraded: false,
        speedJudged: false,
      }));
      return encodeAgentMessage({ payload: { $case: 'results', value: { batchId: randomUUID(), results } } });
    });
  }
} finally {
  await cp.stop();
  await stopTestDatabase();
}
