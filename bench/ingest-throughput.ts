// Benchmark: how many results per second the control plane ingests (insert, rollups, status,
// rule evaluation, then the ack) from agents streaming full batches. Several agent streams
// each keep a few batches in flight, as the agent's publisher does after an outage; like
// agents sharing a location, each stream reports on its own share of the services.
//
//   npx tsx bench/ingest-throughput.ts [results=200000] [services=1000] [batch=500] [streams=4]
// Uses TEST_DATABASE_URL (PostgreSQL) or the embedded database.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { credentials, type ClientDuplexStream } from '@grpc/grpc-js';
import { AgentServiceClient, type AgentMessage, type CheckResult, type ControlMessage } from '../shared/src/gen/agent.js';
import { startTestControlPlane } from '../test/support/control-plane-harness.js';
import { sql } from '../test/support/sql.js';
import { stopTestDatabase } from '../test/support/test-database.js';

const total = Number(process.argv[2] ?? 200_000);
const serviceCount = Number(process.argv[3] ?? 1000);
const batchSize = Number(process.argv[4] ?? 500);
const streams = Number(process.argv[5] ?? 4);
const IN_FLIGHT = 4;

const cp = await startTestControlPlane();
try {
  const user = await cp.api.newUser('ingest-bench');
  await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  const services: string[] = [];
  for (let i = 0; i < serviceCount; i++) {
    const r = await cp.api.post('/services', { name: `s${i}`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 86_400, locations: ['bench'] }, user.token);
    services.push(r.body.id);
  }
  await cp.api.post('/alert-rules', { name: 'any failure', severity: 'warning', condition: { consecutive_failures: 3 } }, user.token);

  const perStream = Math.ceil(total / batchSize / streams);
  const started = performance.now();
  const shares = Array.from({ length: streams }, (_, k) => services.filter((_, i) => i % streams === k));
  const accepted = await Promise.all(shares.map((share) => stream(share, perStream)));
  const seconds = (performance.now() - started) / 1000;
  const stored = accepted.reduce((a, b) => a + b, 0);
  console.log(`${stored.toLocaleString('en')} results in ${seconds.toFixed(1)} s over ${streams} streams (batches of ${batchSize}, ${services.length} services): ${Math.round(stored / seconds).toLocaleString('en')} results/s`);

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
