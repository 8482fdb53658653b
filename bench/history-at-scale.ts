// Benchmark P7: 90-day uptime of a service with ten million raw results (a million at the
// quick size), beside the same count taken over the raw rows in the same run; metrics and a
// service with a thousand results are printed for contrast. Fills the raw table with COPY
// (spread over 90 days), builds the rollups from those rows with the aggregation ingest
// performs as results arrive, then times the HTTP endpoints and prints percentiles.
//
//   npx tsx bench/history-at-scale.ts [--full]
// Needs PostgreSQL: creates (and at the end drops) the database outpost_bench_history on
// BENCH_DATABASE_SERVER (default postgres://postgres@127.0.0.1:5432/postgres).
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { fullSize, percentile, report } from './support/report.js';

const rows = fullSize ? 10_000_000 : 1_000_000;
const requests = fullSize ? 1000 : 300;
const RAW_COUNTS = 5;
const server = new URL(process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const database = 'outpost_bench_history';
const DAY = 86_400_000;
const PERIOD_MS = 90 * DAY;

const admin = new pg.Client({ connectionString: server.toString() });
await admin.connect();
await admin.query(`drop database if exists ${database} with (force)`);
await admin.query(`create database ${database}`);
const url = new URL(server);
url.pathname = `/${database}`;
// The harness reads the test database from here; set before it is first used.
process.env.TEST_DATABASE_URL = url.toString();
const { startTestControlPlane } = await import('../test/support/control-plane-harness.js');

// The API's per-client limit would answer 429 to a benchmark's few thousand requests.
const cp = await startTestControlPlane({ env: { CHECK_RETENTION_DAYS: '100', API_RATE_LIMIT: '1000000/60' } });
const db = new pg.Client({ connectionString: url.toString() });
await db.connect();
try {
  const user = await cp.api.newUser('history-bench');
  const create = async (name: string) =>
    (await cp.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, user.token)).body.id as string;
  const big = await create('ten-million');
  const small = await create('one-thousand');

  const now = Date.now();
  await db.query(
    `select outpost_ensure_day_partition('check_results', d::date), outpost_ensure_day_partition('check_rollups_minute', d::date)
       from generate_series(($1::timestamptz - interval '91 days') at time zone 'UTC', $1::timestamptz at time zone 'UTC', interval '1 day') as d`,
    [new Date(now).toISOString()],
  );

  let started = performance.now();
  await copyResults(big, user.orgId, rows, now);
  await copyResults(small, user.orgId, 1000, now);
  console.log(`COPY of ${rows.toLocaleString('en')} + 1,000 raw results: ${((performance.now() - started) / 1000).toFixed(1)} s`);

  started = performance.now();
  for (const [table, width, histogram] of [
    ['check_rollups_minute', '1 minute', false],
    ['check_rollups_hour', '1 hour', true],
    ['check_rollups_day', '1 day', true],
  ] as const) {
    await db.query(
      `insert into ${table}
         select service_id, date_bin('${width}', checked_at, timestamptz 'epoch'), count(*), count(*) filter (where status <> 'RED'),
                sum(response_time_ms), max(response_time_ms)${histogram ? ', outpost_response_histogram(array_agg(response_time_ms))' : ''}
           from check_results group by 1, 2`,
    );
  }
  await db.query('analyze');
  console.log(`rollups built from the raw rows: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const counts = await db.query<{ service_id: string; raw: string }>('select service_id, count(*) as raw from check_results group by 1');
  const [rollupRows] = (await db.query<{ minute: string; hour: string; day: string }>(
    `select (select count(*) from check_rollups_minute where service_id = $1) as minute,
            (select count(*) from check_rollups_hour where service_id = $1) as hour,
            (select count(*) from check_rollups_day where service_id = $1) as day`,
    [big],
  )).rows;
  console.log(`raw rows per service: ${counts.rows.map((c) => `${c.service_id === big ? 'big' : 'small'} ${Number(c.raw).toLocaleString('en')}`).join(', ')}`);
  console.log(`rollup rows of the big service: ${rollupRows!.minute} minute, ${rollupRows!.hour} hour, ${rollupRows!.day} day`);

  let uptimeP99 = NaN;
  for (const [label, id] of [[`${rows.toLocaleString('en')} results`, big], ['1,000 results', small]] as const) {
    for (const path of [`/services/${id}/uptime?period=90d`, `/services/${id}/metrics?period=90d`]) {
      const timings = (await timeRequests(() => cp.api.get(path, user.token), requests)).sort((a, b) => a - b);
      if (id === big && path.includes('/uptime')) uptimeP99 = percentile(timings, 99);
      console.log(`${label.padEnd(18)} GET ${path.replace(id, '{id}').padEnd(36)} ${summarize(timings)}`);
    }
  }
  const body = (await cp.api.get(`/services/${big}/uptime?period=90d`, user.token)).body;
  console.log(`answer: total_checks ${body.total_checks}, uptime ${body.uptime_percentage} %`);

  // The reference: the same count over the raw rows, straight on the database (no HTTP).
  const raw: number[] = [];
  for (let i = 0; i < RAW_COUNTS; i++) {
    started = performance.now();
    await db.query(`select count(*), count(*) filter (where status <> 'RED') from check_results where service_id = $1 and checked_at >= $2`, [
      big,
      new Date(now - PERIOD_MS).toISOString(),
    ]);
    raw.push(performance.now() - started);
  }
  report({
    id: 'P7',
    what: `GET /services/{id}/uptime?period=90d p99 at ${rows.toLocaleString('en')} raw rows`,
    ours: uptimeP99,
    unit: 'ms',
    reference: { name: `the same count over raw rows (median of ${RAW_COUNTS})`, value: percentile(raw.sort((a, b) => a - b), 50) },
    goal: '≤ 20 ms',
    met: uptimeP99 <= 20,
  });
} finally {
  await db.end();
  await cp.stop();
  if (!process.env.BENCH_KEEP_DATABASE) await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
}

/** Streams `count` results spread evenly over the 90 days before `now` into check_results. */
async function copyResults(serviceId: string, organizationId: string, count: number, now: number): Promise<void> {
  const step = PERIOD_MS / count;
  const CHUNK = 10_000;
  function* lines(): Generator<string> {
    for (let start = 0; start < count; start += CHUNK) {
      let chunk = '';
      for (let i = start; i < Math.min(count, start + CHUNK); i++) {
        const roll = Math.random();
        const status = roll < 0.005 ? 'RED' : roll < 0.02 ? 'YELLOW' : 'GREEN';
        const ms = status === 'YELLOW' ? 1000 + Math.random() * 2000 : 20 + Math.random() * 180;
        const at = new Date(now - i * step).toISOString();
        chunk += `${randomUUID()}\t${serviceId}\t${organizationId}\t${status}\t${ms.toFixed(1)}\tok\tlocal\tbench\t${at}\n`;
      }
      yield chunk;
    }
  }
  await pipeline(
    Readable.from(lines()),
    db.query(copyFrom('copy check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at) from stdin')),
  );
}

async function timeRequests(send: () => Promise<{ status: number }>, n: number): Promise<number[]> {
  for (let i = 0; i < 20; i++) await send();
  const timings: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await send();
    timings.push(performance.now() - t);
    if (r.status !== 200) throw new Error(`status ${r.status}`);
  }
  return timings;
}

function summarize(sorted: number[]): string {
  const at = (p: number) => percentile(sorted, p).toFixed(2);
  return `p50 ${at(50)} ms  p95 ${at(95)} ms  p99 ${at(99)} ms  max ${sorted.at(-1)!.toFixed(2)} ms`;
}
