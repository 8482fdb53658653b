// Benchmark P8: bytes per stored raw result (table, indexes and TOAST over all partitions)
// against a bare table of the same columns keyed by (service, time) only, filled with the same
// rows in the same order: batches of one time slice across many services, as agents deliver.
// Two shapes of row: what the HTTP prober stores for a plain-HTTP target (status code and three
// phase timings), and what the TCP prober stores (one timing), where the key weighs most.
//
//   npx tsx bench/storage-bytes.ts [--full]
// Needs PostgreSQL: creates (and at the end drops) the database outpost_bench_storage on
// BENCH_DATABASE_SERVER (default postgres://postgres@127.0.0.1:5432/postgres).
import pg from 'pg';
import { openDatabase } from '../control-plane/src/db/database.js';
import { createLogger } from '../control-plane/src/logger.js';
import { fullSize, report } from './support/report.js';

const ROWS = fullSize ? 2_000_000 : 300_000;
const SERVICES = 500;
const BATCH_SLICES = 4; // time slices per INSERT: 2,000 rows, about what one ingest batch carries
const server = new URL(process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const database = 'outpost_bench_storage';

const admin = new pg.Client({ connectionString: server.toString() });
await admin.connect();
await admin.query(`drop database if exists ${database} with (force)`);
await admin.query(`create database ${database}`);
const url = new URL(server);
url.pathname = `/${database}`;
const db = new pg.Client({ connectionString: url.toString() });
try {
  const schema = await openDatabase({ url: url.toString(), embeddedDataDir: null, poolSize: 1, logger: createLogger('silent') });
  await schema.close();
  await db.connect();
  await db.query(`create table bare_results (
      id uuid not null, service_id uuid not null, organization_id uuid not null, status text not null, response_time_ms double precision not null,
      message text not null, location text not null, agent_id text not null, checked_at timestamptz not null,
      received_at timestamptz not null default now(), ad_hoc boolean not null default false, details jsonb not null default '{}',
      primary key (service_id, checked_at))`);
  await db.query(`create table bench_services as select gen_random_uuid() as id, row_number() over () as n from generate_series(1, ${SERVICES})`);

  // One result per service per minute, ending now: the partitions it needs exist first.
  const slices = Math.ceil(ROWS / SERVICES);
  const start = Date.now() - slices * 60_000;
  await db.query(
    `select outpost_ensure_day_partition('check_results', d::date)
       from generate_series($1::timestamptz at time zone 'UTC', now() at time zone 'UTC' + interval '1 day', interval '1 day') as d`,
    [new Date(start).toISOString()],
  );
  const columns = '(id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at, details)';
  const shapes = [
    {
      id: 'P8-http',
      message: `'HTTP 200 in ' || round(r.ms) || ' ms'`,
      details: `jsonb_build_object('status_code', 200, 'connect_ms', round((r.ms * 0.1)::numeric, 1), 'ttfb_ms', round((r.ms * 0.7)::numeric, 1),
          'transfer_ms', round((r.ms * 0.2)::numeric, 1))`,
    },
    { id: 'P8-tcp', message: `'connected in ' || round(r.ms) || ' ms'`, details: `jsonb_build_object('connect_ms', r.ms)` },
  ];
  for (const shape of shapes) {
    await db.query('truncate check_results, bare_results');
    const rows = `select gen_random_uuid(), s.id, '6f1c0c9e-3b1a-4c55-9a0e-2f4b7d8e1a23'::uuid,
          case when random() < 0.01 then 'RED' else 'GREEN' end, r.ms, ${shape.message}, 'local',
          'b0f7e0a2-6c1d-4e8b-a4f5-7d3c2e1b9a60', $1::timestamptz + (t * interval '1 minute') + (s.n * interval '50 ms'), ${shape.details}
        from generate_series($2::int, $3::int) as t, bench_services as s, lateral (select (2 + random() * 180 + 0 * s.n + 0 * t)::numeric(8, 1)::float8 as ms) as r`;
    for (let t = 0; t < slices; t += BATCH_SLICES) {
      // Each batch is stored once in a scratch table so both tables receive identical rows.
      await db.query('begin');
      await db.query(`create temporary table batch ${columns} on commit drop as ${rows}`, [new Date(start).toISOString(), t, Math.min(slices, t + BATCH_SLICES) - 1]);
      await db.query(`insert into check_results ${columns} select * from batch`);
      await db.query(`insert into bare_results ${columns} select * from batch`);
      await db.query('commit');
    }
    await db.query('vacuum analyze check_results');
    await db.query('vacuum analyze bare_results');
    const ours = await bytesPerRow('check_results');
    const bare = await bytesPerRow('bare_results');
    console.log(`${shape.id}: ${ROWS.toLocaleString('en')} rows of ${SERVICES} services; index bytes per row: ${await indexBytes()}`);
    report({ id: shape.id, what: `bytes per stored raw result (${shape.id.slice(3)} row)`, ours, unit: 'B', reference: { name: 'bare table keyed (service, time)', value: bare }, goal: '≤ 1.3x', met: ours <= 1.3 * bare });
  }
} finally {
  await db.end().catch(() => undefined);
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
}

/** Table, indexes and TOAST of `table` (all its partitions) per row. */
async function bytesPerRow(table: string): Promise<number> {
  const [r] = (await db.query<{ bytes: string; n: string }>(
    `select coalesce((select sum(pg_total_relation_size(relid)) from pg_partition_tree($1::regclass)), pg_total_relation_size($1::regclass)) as bytes, (select count(*) from ${table}) as n`,
    [table],
  )).rows;
  return Number(r!.bytes) / Number(r!.n);
}

/** Each index's bytes per row, its day partitions summed. */
async function indexBytes(): Promise<string> {
  const indexes = await db.query<{ name: string; bytes: string }>(
    `select i.indexrelid::regclass::text as name, pg_relation_size(i.indexrelid) as bytes
       from pg_index i where i.indrelid in (select relid from pg_partition_tree('check_results'::regclass) union select 'bare_results'::regclass)`,
  );
  const byIndex = new Map<string, number>();
  for (const i of indexes.rows) {
    const key = i.name.replace(/_p\d{8}/, '');
    byIndex.set(key, (byIndex.get(key) ?? 0) + Number(i.bytes));
  }
  return [...byIndex].filter(([, v]) => v > 0).map(([k, v]) => `${k} ${(v / ROWS).toFixed(1)}`).join(', ');
}
