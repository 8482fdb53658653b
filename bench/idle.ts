// Benchmark I1 (issue 44): what the control plane costs at rest. The product is started as
// `npm start` starts it (node with the start script's options and environment on the build,
// a fresh DATA_DIR, its embedded agent), left to settle, and its CPU time (utime + stime of the
// process and any children, from /proc) is taken over a window: with no services, and with 20
// HTTP services every 20 s against a target served by a process of its own. Then the same on
// PostgreSQL (a fresh database), where the CPU of the PostgreSQL processes serving that database
// counts too (found by their process titles, which name the database). Beside each, over the same
// window, the floor: a bare Koa server holding one idle connection to the same kind of database
// (bench/reference/idle-koa.ts). Last, a separate run with `--cpu-prof` shows where the CPU of the
// idle case goes (the profiler's own sampling would inflate the measured runs).
//
//   npx tsx bench/idle.ts [--full] [--window SECONDS] [--only embedded|postgres] [--no-profile | --profile-services] [--dist DIR]
// (--profile-services profiles the embedded case with 20 services instead of the one without.)
// Builds first as `npm start` does (or runs the build in DIR, another version compiled apart, to compare). The PostgreSQL runs create (and at the end drop) the
// databases outpost_bench_idle and outpost_bench_idle_floor on BENCH_DATABASE_SERVER
// (default postgres://postgres@127.0.0.1:5432/postgres).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from '../test/fixtures/peers/net-fixtures.js';
import { ApiClient } from '../test/support/api-client.js';
import { npmStartLaunch } from '../test/support/start-command.js';
import { startScript, stopChild } from './support/agent-under-test.js';
import { summarizeIdleProfile } from './support/idle-profile.js';
import { fullSize, report, round } from './support/report.js';

const argValue = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const WINDOW_S = Number(argValue('--window') ?? (fullSize ? 300 : 60));
/** After ready (and the services made): the first checks, rollups and the agent's start are done by then. */
const SETTLE_S = fullSize ? 30 : 15;
const SERVICES = 20;
const INTERVAL_S = 20;
/** How often the processes are looked for: PostgreSQL backends come and go with the pool. */
const SCAN_MS = 500;
const only = argValue('--only');
const entry = path.join(argValue('--dist') ?? 'dist', 'control-plane/src/main.js');
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const server = new URL(process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const PRODUCT_DB = 'outpost_bench_idle';
const FLOOR_DB = 'outpost_bench_idle_floor';
const launch = npmStartLaunch();

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
}

/** Every process's parent and name, from /proc. */
function processes(): Map<number, Proc> {
  const all = new Map<number, Proc>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      all.set(Number(name), { pid: Number(name), ppid: Number(stat.slice(close + 2).split(' ')[1]), comm: stat.slice(stat.indexOf('(') + 1, close) });
    } catch {
      // It ended while we looked.
    }
  }
  return all;
}

/**
 * CPU time of a process so far, in ms: the sum of its threads' schedstat (nanoseconds), finer
 * than utime + stime's 10 ms ticks (an idle process uses less than a tick a second). The
 * processes measured keep their threads (Node's, PostgreSQL's single one); undefined once gone.
 */
function cpuMsOf(pid: number): number | undefined {
  try {
    let ns = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1e6;
  } catch {
    return undefined;
  }
}

/** A process and its descendants. */
function family(pid: number): (all: Map<number, Proc>) => number[] {
  return (all) => {
    const found = [pid];
    for (let i = 0; i < found.length; i++) for (const p of all.values()) if (p.ppid === found[i]) found.push(p.pid);
    return found.filter((p) => all.has(p));
  };
}

/** The PostgreSQL processes serving `database` (a backend's title names its database). */
function backendsOf(database: string): (all: Map<number, Proc>) => number[] {
  const title = new RegExp(`\\s${database}(\\s|$)`);
  return (all) =>
    [...all.values()]
      .filter((p) => p.comm === 'postgres' && title.test(cmdline(p.pid)))
      .map((p) => p.pid);
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * CPU of the processes a selector finds, over a window: for a process there at the start, what
 * it used since; for one that appeared during the window (a new backend), all it used. A process
 * that started and ended between two scans is missed; `appeared` counts the others.
 */
class CpuMeter {
  private readonly start = new Map<number, number>();
  private readonly last = new Map<number, number>();
  appeared = 0;
  constructor(readonly select: (all: Map<number, Proc>) => number[]) {}

  begin(all: Map<number, Proc>): void {
    for (const pid of this.select(all)) {
      const ms = cpuMsOf(pid);
      if (ms !== undefined) this.start.set(pid, ms);
    }
  }

  scan(all: Map<number, Proc>): void {
    for (const pid of this.select(all)) {
      const ms = cpuMsOf(pid);
      if (ms === undefined) continue;
      if (!this.start.has(pid) && !this.last.has(pid)) this.appeared++;
      this.last.set(pid, ms);
    }
  }

  usedMs(): number {
    let used = 0;
    for (const [pid, ms] of this.last) used += ms - (this.start.get(pid) ?? 0);
    return used;
  }
}

interface CaseResult {
  name: string;
  productMs: number;
  databaseMs: number;
  floorMs: number;
  floorDatabaseMs: number;
  seconds: number;
  newBackends: number;
}

if (!argValue('--dist')) {
  const build = spawnSync('sh', ['-c', 'node scripts/build.mjs && node scripts/build-pglite-template.mjs'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('the build failed');
}

const admin = new pg.Client({ connectionString: server.toString() });
await admin.connect();
const targets = await startScript<{ http: number }>('targets.ts', []);
const results: CaseResult[] = [];
console.log(`load before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; window ${WINDOW_S} s after ${SETTLE_S} s of settling`);
try {
  for (const kind of ['embedded', 'postgres'] as const) {
    if (only && only !== kind) continue;
    if (kind === 'postgres') await freshDatabase(FLOOR_DB);
    const floor = await startScript<{ http: number }>('idle-koa.ts', [kind === 'embedded' ? 'embedded' : databaseUrl(FLOOR_DB)]);
    try {
      // Its start (compiling PGlite, loading modules) is over before it is measured.
      await sleep(SETTLE_S * 1000);
      for (const services of [0, SERVICES]) {
        const name = `${kind}, ${services === 0 ? 'no services' : `${services} HTTP services at ${INTERVAL_S} s`}`;
        const result = await measureCase(name, kind, services, floor.child);
        results.push(result);
        const perS = (ms: number) => round(ms / result.seconds);
        console.log(
          `${name}: control plane ${perS(result.productMs)} ms/s` +
            (kind === 'postgres' ? ` + its backends ${perS(result.databaseMs)} ms/s (${result.newBackends} opened in the window)` : '') +
            `; floor ${perS(result.floorMs)} ms/s` +
            (kind === 'postgres' ? ` + its backend ${perS(result.floorDatabaseMs)} ms/s` : '') +
            ` (load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`,
        );
      }
    } finally {
      await floor.stop();
    }
  }
  if (!process.argv.includes('--no-profile') && only !== 'postgres') await profileEmbedded(process.argv.includes('--profile-services') ? SERVICES : 0);
} finally {
  await targets.stop();
  for (const db of [PRODUCT_DB, FLOOR_DB]) await admin.query(`drop database if exists ${db} with (force)`);
  await admin.end();
}
console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);

for (const r of results) {
  const onPostgres = r.name.startsWith('postgres');
  const ours = (r.productMs + r.databaseMs) / r.seconds;
  const floor = (r.floorMs + r.floorDatabaseMs) / r.seconds;
  const limit = onPostgres ? 5 : 8;
  report({
    id: `I1-${onPostgres ? 'pg' : 'embedded'}-${r.name.includes('services at') ? SERVICES : 0}`,
    what: `npm start at rest, ${r.name}: CPU${onPostgres ? ' with the database\'s' : ''} (${r.seconds} s)`,
    ours,
    unit: 'ms/s',
    // A floor of exactly nothing gives no ratio; the line above shows it.
    reference: floor > 0 ? { name: `bare Koa with one idle ${onPostgres ? 'pg' : 'PGlite'} connection`, value: floor } : null,
    goal: `≤ ${limit} ms/s`,
    met: ours <= limit,
  });
}

function databaseUrl(database: string): string {
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
}

async function freshDatabase(database: string): Promise<void> {
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.query(`create database ${database}`);
}

interface Product {
  child: ChildProcess;
  api: ApiClient;
  spawnedAt: number;
  stop(): Promise<void>;
}

async function startProduct(kind: 'embedded' | 'postgres', nodeOptions: string[] = []): Promise<Product> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-idle-'));
  if (kind === 'postgres') await freshDatabase(PRODUCT_DB);
  const [port, grpcPort] = [await freePort(), await freePort()];
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...launch.nodeOptions, ...nodeOptions, entry], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      ...launch.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      GRPC_PORT: String(grpcPort),
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      // Twenty services are more than the free plan holds.
      DEFAULT_PLAN: 'unlimited',
      ...(kind === 'postgres' ? { DATABASE_URL: databaseUrl(PRODUCT_DB) } : {}),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 120_000;
    while (!(await ready(port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the control plane did not start (exit ${child.exitCode})`);
      await sleep(200);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { child, api: new ApiClient(`http://127.0.0.1:${port}`), spawnedAt, stop };
}

async function addServices(api: ApiClient, count: number): Promise<{ token: string; ids: string[] }> {
  const user = await api.newUser('idle-bench');
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await api.post('/services', { name: `idle ${i}`, endpoint: `http://127.0.0.1:${targets.first.http}/`, check_type: 'HTTP', check_interval_seconds: INTERVAL_S, locations: ['local'] }, user.token);
    if (created.status !== 201) throw new Error(`service creation failed: ${created.status} ${created.text}`);
    ids.push(created.body.id);
  }
  return { token: user.token, ids };
}

/** Every service was checked within its last two intervals: the product did its work while measured. */
async function assertChecked(api: ApiClient, owner: { token: string; ids: string[] }): Promise<void> {
  for (const id of owner.ids) {
    const got = await api.get(`/services/${id}`, owner.token);
    const at = got.body?.last_checked_at ? Date.parse(got.body.last_checked_at) : 0;
    if (Date.now() - at > 2 * INTERVAL_S * 1000) throw new Error(`service ${id} was last checked at ${got.body?.last_checked_at}: the agent did not check it during the window`);
  }
}

async function measureCase(name: string, kind: 'embedded' | 'postgres', services: number, floor: ChildProcess): Promise<CaseResult> {
  const product = await startProduct(kind);
  try {
    const owner = services > 0 ? await addServices(product.api, services) : undefined;
    await sleep(SETTLE_S * 1000);
    const meters = {
      product: new CpuMeter(family(product.child.pid!)),
      database: new CpuMeter(kind === 'postgres' ? backendsOf(PRODUCT_DB) : () => []),
      floor: new CpuMeter(family(floor.pid!)),
      floorDatabase: new CpuMeter(kind === 'postgres' ? backendsOf(FLOOR_DB) : () => []),
    };
    const begun = performance.now();
    const first = processes();
    for (const m of Object.values(meters)) m.begin(first);
    while (performance.now() - begun < WINDOW_S * 1000) {
      await sleep(Math.min(SCAN_MS, WINDOW_S * 1000 - (performance.now() - begun)));
      const all = processes();
      for (const m of Object.values(meters)) m.scan(all);
    }
    const seconds = Math.round((performance.now() - begun) / 100) / 10;
    if (product.child.exitCode !== null) throw new Error(`${name}: the control plane exited during the window`);
    if (owner) await assertChecked(product.api, owner);
    return {
      name,
      productMs: meters.product.usedMs(),
      databaseMs: meters.database.usedMs(),
      floorMs: meters.floor.usedMs(),
      floorDatabaseMs: meters.floorDatabase.usedMs(),
      seconds,
      newBackends: meters.database.appeared,
    };
  } finally {
    await product.stop();
  }
}

/** An embedded case again under `--cpu-prof`; the samples of the window after settling, summarized. */
async function profileEmbedded(services: number): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-idle-prof-'));
  try {
    const product = await startProduct('embedded', ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    let from = 0;
    let to = 0;
    try {
      if (services > 0) await addServices(product.api, services);
      await sleep(SETTLE_S * 1000);
      from = performance.now() - product.spawnedAt;
      await sleep(WINDOW_S * 1000);
      to = performance.now() - product.spawnedAt;
      // The profile's clock starts a little after the spawn: the stop stays out of the window.
      await sleep(1000);
    } finally {
      await product.stop();
    }
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the control plane wrote no CPU profile');
    console.log(`\nwhere the control plane's CPU goes at rest (embedded, ${services > 0 ? `${services} services` : 'no services'}; --cpu-prof samples of a ${WINDOW_S} s window; the sampler itself adds CPU):`);
    console.log(summarizeIdleProfile(JSON.parse(readFileSync(path.join(dir, file), 'utf8')), { fromMs: from, toMs: to, root }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function ready(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/api/v1/ready`)).ok;
  } catch {
    return false;
  }
}
