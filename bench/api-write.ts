// Benchmark P6: POST /services per second from concurrent clients of one organization, and
// GET /services (every service, as the dashboard asks) once the organization has 2,000.
// The load generator is a process of its own (keep-alive, fixed concurrency).
//
//   npx tsx bench/api-write.ts [--full]
// Uses TEST_DATABASE_URL (PostgreSQL) or the embedded database. Quick size: the rate is that of
// the 2,000 creates the list needs; full size: of 10,000 more in another organization.
import { startTestControlPlane, type TestControlPlane } from '../test/support/control-plane-harness.js';
import { sql } from '../test/support/sql.js';
import { stopTestDatabase } from '../test/support/test-database.js';
import { fullSize, percentile, report } from './support/report.js';
import { runLoad, type LoadResult } from './support/http-load.js';

const LIST_SIZE = 2_000;
const FULL_CREATES = 10_000;
const CONCURRENCY = 16;
const LIST_READS = fullSize ? 200 : 50;
const LIMIT_SECONDS = 300;
const WARM_UP_SECONDS = 3;

function check(result: LoadResult, what: string): LoadResult {
  if (result.errors > 0) throw new Error(`${what}: ${result.errors} of ${result.requests} requests failed, the first: ${result.firstError}`);
  return result;
}

/** A user whose organization has no service cap. */
async function unlimitedUser(cp: TestControlPlane, label: string) {
  const user = await cp.api.newUser(label);
  await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  organizations.push(user.orgId);
  return user;
}

/** Creates `count` services, or as many as `seconds` allow when count is undefined. */
async function createServices(cp: TestControlPlane, token: string, count: number | undefined, seconds = LIMIT_SECONDS): Promise<LoadResult> {
  const body = JSON.stringify({ name: 'service {n}', endpoint: 'https://example.com/{n}', check_type: 'HTTP', check_interval_seconds: 60, tags: ['bench'], locations: ['bench'] });
  const result = check(
    await runLoad({ url: `${cp.baseUrl}/api/v1/services`, method: 'POST', headers: { authorization: `Bearer ${token}` }, body, concurrency: CONCURRENCY, seconds, maxRequests: count, expectStatus: 201 }),
    'POST /services',
  );
  if (count !== undefined && result.requests !== count) throw new Error(`created ${result.requests} of ${count} services within ${LIMIT_SECONDS} s`);
  return result;
}

const organizations: string[] = [];
const cp = await startTestControlPlane({ env: { API_RATE_LIMIT: 'off' } });
try {
  // Warms up the JIT and the pools in an organization of its own, so the list's holds 2,000 exactly.
  await createServices(cp, (await unlimitedUser(cp, 'api-write-warm-up')).token, undefined, WARM_UP_SECONDS);
  const lister = await unlimitedUser(cp, 'api-write-list');
  const forList = await createServices(cp, lister.token, LIST_SIZE);
  const [stored] = await sql<{ count: number }>('select count(*)::int as count from services where organization_id = $1', [lister.orgId]);
  if (stored?.count !== LIST_SIZE) throw new Error(`${stored?.count} services stored for ${LIST_SIZE} created`);
  const writes = fullSize ? await createServices(cp, (await unlimitedUser(cp, 'api-write')).token, FULL_CREATES) : forList;
  const perSecond = writes.requests / writes.seconds;

  const reads = check(
    await runLoad({ url: `${cp.baseUrl}/api/v1/services`, method: 'GET', headers: { authorization: `Bearer ${lister.token}`, 'accept-encoding': 'gzip' }, concurrency: 1, seconds: LIMIT_SECONDS, maxRequests: LIST_READS, expectStatus: 200 }),
    'GET /services',
  );
  const p50 = percentile(reads.latencies, 50);
  console.log(`POST /services: ${writes.requests.toLocaleString('en')} from ${CONCURRENCY} clients in ${writes.seconds.toFixed(1)} s (p50 ${percentile(writes.latencies, 50).toFixed(1)} ms, p99 ${percentile(writes.latencies, 99).toFixed(1)} ms); GET /services of ${LIST_SIZE.toLocaleString('en')}, gzip, one client: p50 ${p50.toFixed(1)} ms, p99 ${percentile(reads.latencies, 99).toFixed(1)} ms over ${reads.requests}`);
  report({ id: 'P6-create', what: 'POST /services', ours: perSecond, unit: '/s', reference: null, goal: '≥ 500/s', met: perSecond >= 500 });
  report({ id: 'P6-list', what: `GET /services with ${LIST_SIZE.toLocaleString('en')} services, p50`, ours: p50, unit: 'ms', reference: null, goal: '≤ 50 ms', met: p50 <= 50 });
} finally {
  await cp.stop();
  await sql('delete from organizations where id = any($1)', [organizations]);
  await stopTestDatabase();
}
