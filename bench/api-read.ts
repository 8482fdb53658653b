// Benchmark P5: authenticated GET /services/{id} requests per second, against a bare Koa server
// (bench/reference/bare-koa.ts) doing one indexed SELECT of the same row on the same database.
// Every party runs in a process of its own, so no one's timers or garbage slow another: the
// product as `npm start` starts it (the build, with the start script's options) on PostgreSQL
// (a fresh database), its embedded agent off (no checks run here) and its API rate limit off
// (the load is to be answered, not refused); the bare Koa server with a pool of the product's
// default size; and the load (wrk when installed, else bench/support/http-load.ts): keep-alive,
// fixed concurrency, fixed duration, alternating rounds, so a neighbour's load falls on both.
// CPU per request is each server's process CPU over the requests it served (PostgreSQL's own,
// the same one SELECT for both, is not counted).
// Below the goal, or with --profile, the product is started again under `node --cpu-prof`
// and loaded for one more round: where its main thread's time went is printed.
//
//   npx tsx bench/api-read.ts [--full] [--profile]
// Creates (and at the end drops) the database outpost_bench_api_read on BENCH_DATABASE_SERVER
// (default postgres://postgres@127.0.0.1:5432/postgres).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startScript, type RunningProcess } from './support/agent-under-test.js';
import { runLoad, type LoadPlan, type LoadResult } from './support/http-load.js';
import { call, registerOwner } from './support/product-api.js';
import { buildProduct, cpuBetween, cpuSnapshot, startProduct, type Product } from './support/product-process.js';
import { classifyProduct, formatParts, profileParts, readProfile } from './support/profile-parts.js';
import { fullSize, report } from './support/report.js';
import { runWrk, wrkInstalled } from './support/wrk-load.js';

const ROUNDS = 3;
const ROUND_SECONDS = fullSize ? 10 : 4;
const WARM_UP_SECONDS = 2;
const CONCURRENCY = 32;
/** DATABASE_POOL_SIZE's default (control-plane/src/config.ts): the bare server gets as many connections. */
const POOL_SIZE = 10;
const GOAL = 0.5;
const DATABASE = 'outpost_bench_api_read';
const server = new URL(process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const databaseUrl = Object.assign(new URL(server), { pathname: `/${DATABASE}` }).toString();
const PRODUCT_ENV = { DATABASE_URL: databaseUrl, EMBEDDED_AGENT: 'false', API_RATE_LIMIT: 'off' };
const useWrk = wrkInstalled();

interface Target {
  url: string;
  headers: Record<string, string>;
  pid: number;
  requests: number;
  seconds: number;
  cpuMs: number;
}

async function load(target: Target, seconds: number): Promise<void> {
  const plan: LoadPlan = { url: target.url, headers: target.headers, method: 'GET', expectStatus: 200, concurrency: CONCURRENCY, seconds };
  const cpu = cpuSnapshot(target.pid);
  const result: LoadResult = useWrk ? runWrk(plan) : await runLoad(plan);
  const used = cpuBetween(cpu, cpuSnapshot(target.pid)).totalMs;
  if (result.errors > 0) throw new Error(`${target.url}: ${result.errors} of ${result.requests} requests failed: ${result.firstError}`);
  target.requests += result.requests;
  target.seconds += result.seconds;
  target.cpuMs += used;
}

interface Started {
  product: Product;
  /** The path of the one service, the same under /api/v1 and on the bare server. */
  path: string;
  token: string;
}

/** A fresh database, the product on it (with `nodeOptions`), a user and one service. */
async function startOnFreshDatabase(nodeOptions: string[] = []): Promise<Started> {
  await admin.query(`drop database if exists ${DATABASE} with (force)`);
  await admin.query(`create database ${DATABASE}`);
  const product = await startProduct(PRODUCT_ENV, nodeOptions);
  try {
    const owner = await registerOwner(product.baseUrl, 'api-read-bench');
    const created = await call<{ id: string }>(product.baseUrl, 'POST', '/services', owner.token, { name: 'read me', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 86_400, locations: ['bench'] });
    return { product, path: `/services/${created.id}`, token: owner.token };
  } catch (err) {
    await product.stop();
    throw err;
  }
}

const ourTarget = (s: Started): Target => ({ url: `${s.product.baseUrl}/api/v1${s.path}`, headers: { authorization: `Bearer ${s.token}` }, pid: s.product.pid, requests: 0, seconds: 0, cpuMs: 0 });

buildProduct();
const admin = new pg.Client({ connectionString: server.toString() });
await admin.connect();
let started: Started | undefined;
let bare: RunningProcess | undefined;
try {
  started = await startOnFreshDatabase();
  const bareKoa = await startScript<{ url: string }>('bare-koa.ts', [databaseUrl, String(POOL_SIZE)]);
  bare = bareKoa;
  const ours = ourTarget(started);
  const reference: Target = { url: `${bareKoa.first.url}${started.path}`, headers: {}, pid: bareKoa.child.pid!, requests: 0, seconds: 0, cpuMs: 0 };
  await load({ ...ours }, WARM_UP_SECONDS);
  await load({ ...reference }, WARM_UP_SECONDS);
  for (let round = 0; round < ROUNDS; round++) {
    await load(ours, ROUND_SECONDS);
    await load(reference, ROUND_SECONDS);
  }

  const rate = (t: Target) => t.requests / t.seconds;
  const cpuPerRequest = (t: Target) => Math.round((t.cpuMs * 1000) / t.requests);
  console.log(
    `GET /services/{id}, ${CONCURRENCY} connections from ${useWrk ? 'wrk' : 'a Node load generator'} (a process of its own), ${ROUNDS} rounds of ${ROUND_SECONDS} s each: ` +
      `control plane ${Math.round(rate(ours))}/s at ${cpuPerRequest(ours)} µs CPU per request; ` +
      `bare Koa ${Math.round(rate(reference))}/s at ${cpuPerRequest(reference)} µs (${(cpuPerRequest(ours) / cpuPerRequest(reference)).toFixed(1)}x its CPU per request)`,
  );
  const met = rate(ours) >= GOAL * rate(reference);
  report({ id: 'P5', what: 'authenticated GET /services/{id}', ours: rate(ours), unit: 'req/s', reference: { name: 'bare Koa, one indexed SELECT', value: rate(reference) }, goal: `≥ ${GOAL}x`, met });
  if (!met || process.argv.includes('--profile')) {
    await bare.stop();
    await started.product.stop();
    started = undefined;
    await profileUnderLoad();
  }
} finally {
  await bare?.stop();
  await started?.product.stop();
  await admin.query(`drop database if exists ${DATABASE} with (force)`);
  await admin.end();
}

/** The product again under --cpu-prof, warmed up and loaded for a round; the round's samples summarized. */
async function profileUnderLoad(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-api-read-prof-'));
  try {
    const profiled = await startOnFreshDatabase(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    let from = 0;
    let to = 0;
    try {
      const again = ourTarget(profiled);
      await load({ ...again }, WARM_UP_SECONDS);
      from = performance.now() - profiled.product.spawnedAt;
      await load(again, ROUND_SECONDS);
      to = performance.now() - profiled.product.spawnedAt;
      console.log(`under the profiler: ${Math.round(again.requests / again.seconds)}/s at ${Math.round((again.cpuMs * 1000) / again.requests)} µs CPU per request`);
    } finally {
      await profiled.product.stop();
    }
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the control plane wrote no CPU profile');
    console.log(`where the control plane's time goes under this load (--cpu-prof samples of the ${ROUND_SECONDS} s round):`);
    console.log(formatParts(profileParts(readProfile(path.join(dir, file)), classifyProduct, from, to), 25));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
