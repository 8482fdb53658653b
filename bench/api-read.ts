// Benchmark P5: authenticated GET /services/{id} requests per second, against a bare Koa server
// (bench/reference/bare-koa.ts) doing one indexed SELECT of the same row on the same database.
// One load generator (a process of its own: keep-alive, fixed concurrency, fixed duration)
// drives the two in alternating rounds, so a neighbour's load on the machine falls on both.
// Both servers run in this process and only one is loaded at a time, so CPU per request is
// this process's CPU time over the requests served.
//
//   npx tsx bench/api-read.ts [--full]
// Uses TEST_DATABASE_URL (PostgreSQL) or the embedded database.
import { startTestControlPlane } from '../test/support/control-plane-harness.js';
import { sql } from '../test/support/sql.js';
import { stopTestDatabase, testDatabase } from '../test/support/test-database.js';
import { startBareKoa } from './reference/bare-koa.js';
import { fullSize, report } from './support/report.js';
import { runLoad, type LoadPlan } from './support/http-load.js';

const ROUNDS = 3;
const ROUND_SECONDS = fullSize ? 10 : 4;
const WARM_UP_SECONDS = 2;
const CONCURRENCY = 32;

interface Target {
  url: string;
  headers: Record<string, string>;
  requests: number;
  seconds: number;
  cpuMicros: number;
}

async function load(target: Target, seconds: number): Promise<void> {
  const plan: LoadPlan = { url: target.url, headers: target.headers, method: 'GET', expectStatus: 200, concurrency: CONCURRENCY, seconds };
  const cpu = process.cpuUsage();
  const result = await runLoad(plan);
  const used = process.cpuUsage(cpu);
  if (result.errors > 0) throw new Error(`${target.url}: ${result.errors} of ${result.requests} requests failed, the first: ${result.firstError}`);
  target.requests += result.requests;
  target.seconds += result.seconds;
  target.cpuMicros += used.user + used.system;
}

const db = await testDatabase();
const cp = await startTestControlPlane({ env: { API_RATE_LIMIT: 'off' } });
const bare = await startBareKoa(db.url, db.poolSize);
let organizationId: string | undefined;
try {
  const user = await cp.api.newUser('api-read-bench');
  organizationId = user.orgId;
  const created = await cp.api.post('/services', { name: 'read me', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 86_400, locations: ['bench'] }, user.token);
  const ours: Target = { url: `${cp.baseUrl}/api/v1/services/${created.body.id}`, headers: { authorization: `Bearer ${user.token}` }, requests: 0, seconds: 0, cpuMicros: 0 };
  const reference: Target = { url: `${bare.url}/services/${created.body.id}`, headers: {}, requests: 0, seconds: 0, cpuMicros: 0 };
  await load({ ...ours }, WARM_UP_SECONDS);
  await load({ ...reference }, WARM_UP_SECONDS);
  for (let round = 0; round < ROUNDS; round++) {
    await load(ours, ROUND_SECONDS);
    await load(reference, ROUND_SECONDS);
  }

  const rate = (t: Target) => t.requests / t.seconds;
  const cpuPerRequest = (t: Target) => Math.round(t.cpuMicros / t.requests);
  console.log(
    `GET /services/{id}, ${CONCURRENCY} connections, ${ROUNDS} rounds of ${ROUND_SECONDS} s each: control plane ${Math.round(rate(ours))}/s at ${cpuPerRequest(ours)} µs CPU per request; ` +
      `bare Koa ${Math.round(rate(reference))}/s at ${cpuPerRequest(reference)} µs (${(cpuPerRequest(ours) / cpuPerRequest(reference)).toFixed(1)}x its CPU per request)`,
  );
  report({ id: 'P5', what: 'authenticated GET /services/{id}', ours: rate(ours), unit: 'req/s', reference: { name: 'bare Koa, one indexed SELECT', value: rate(reference) }, goal: '≥ 0.5x', met: rate(ours) >= 0.5 * rate(reference) });
} finally {
  await bare.stop();
  await cp.stop();
  if (organizationId) await sql('delete from organizations where id = $1', [organizationId]);
  await stopTestDatabase();
}
