// Benchmark P5: authenticated GET /services/{id} requests per second, against a bare Koa server
// (bench/reference/bare-koa.ts) doing one indexed SELECT of the same row on the same database.
// One load generator (a process of its own: keep-alive, fixed concurrency, fixed duration)
// drives both in turn; the servers run in this process, so CPU per request is this process's
// CPU time over the requests served.
//
//   npx tsx bench/api-read.ts [--full]
// Uses TEST_DATABASE_URL (PostgreSQL) or the embedded database.
import { startTestControlPlane } from '../test/support/control-plane-harness.js';
import { stopTestDatabase, testDatabase } from '../test/support/test-database.js';
import { startBareKoa } from './reference/bare-koa.js';
import { fullSize, percentile, report } from './support/report.js';
import { runLoad, type LoadPlan, type LoadResult } from './support/http-load.js';

const SECONDS = fullSize ? 30 : 10;
const WARM_UP_SECONDS = 2;
const CONCURRENCY = 32;

interface Served {
  perSecond: number;
  cpuMicrosPerRequest: number;
  p50: number;
}

/** Warms up, then measures one server under the plan. */
async function measure(plan: Omit<LoadPlan, 'seconds' | 'concurrency' | 'method' | 'expectStatus'>): Promise<Served> {
  const full: LoadPlan = { ...plan, method: 'GET', expectStatus: 200, concurrency: CONCURRENCY, seconds: WARM_UP_SECONDS };
  check(await runLoad(full));
  const cpu = process.cpuUsage();
  const result = check(await runLoad({ ...full, seconds: SECONDS }));
  const used = process.cpuUsage(cpu);
  return { perSecond: result.requests / result.seconds, cpuMicrosPerRequest: (used.user + used.system) / result.requests, p50: percentile(result.latencies, 50) };
}

function check(result: LoadResult): LoadResult {
  if (result.errors > 0) throw new Error(`${result.errors} of ${result.requests} requests failed, the first: ${result.firstError}`);
  return result;
}

const db = await testDatabase();
const cp = await startTestControlPlane({ env: { API_RATE_LIMIT: 'off' } });
let ours: Served;
let serviceId: string;
try {
  const user = await cp.api.newUser('api-read-bench');
  const created = await cp.api.post('/services', { name: 'read me', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 86_400, locations: ['bench'] }, user.token);
  serviceId = created.body.id;
  ours = await measure({ url: `${cp.baseUrl}/api/v1/services/${serviceId}`, headers: { authorization: `Bearer ${user.token}` } });
} finally {
  await cp.stop();
}
const bare = await startBareKoa(db.url, db.poolSize);
let reference: Served;
try {
  reference = await measure({ url: `${bare.url}/services/${serviceId}`, headers: {} });
} finally {
  await bare.stop();
  await stopTestDatabase();
}

console.log(`GET /services/{id}, ${CONCURRENCY} connections for ${SECONDS} s: control plane ${Math.round(ours.perSecond)}/s (p50 ${ours.p50.toFixed(1)} ms, ${Math.round(ours.cpuMicrosPerRequest)} µs CPU per request); bare Koa ${Math.round(reference.perSecond)}/s (p50 ${reference.p50.toFixed(1)} ms, ${Math.round(reference.cpuMicrosPerRequest)} µs CPU per request)`);
report({ id: 'P5', what: 'authenticated GET /services/{id}', ours: ours.perSecond, unit: 'req/s', reference: { name: 'bare Koa, one indexed SELECT', value: reference.perSecond }, goal: '≥ 0.5x', met: ours.perSecond >= 0.5 * reference.perSecond });
