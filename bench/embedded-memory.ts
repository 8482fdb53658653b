// Benchmark P9: memory of the control plane started as `npm start` starts it (its environment
// and Node options read from package.json), with no services, on the embedded database
// (PGlite) against the same build on PostgreSQL. For each, a first start on an empty data
// folder (the embedded one copies the build's migrated template; on PostgreSQL the migrations
// run) and a restart on the data it left: the peak RSS while starting (VmHWM until
// /api/v1/ready answers) and the steady RSS (the highest VmRSS sampled over a while after that).
//
//   npx tsx bench/embedded-memory.ts [--full]
// Builds with `npm run -s build` first. The PostgreSQL reference creates (and at the end drops)
// the database outpost_bench_memory on BENCH_DATABASE_SERVER (default postgres://postgres@127.0.0.1:5432/postgres).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { npmStartLaunch } from '../test/support/start-command.js';
import { fullSize, report } from './support/report.js';

const STEADY_SECONDS = fullSize ? 120 : 10;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const server = new URL(process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const database = 'outpost_bench_memory';
const launch = npmStartLaunch();

interface Memory {
  startPeakMb: number;
  steadyMb: number;
}

const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) throw new Error('the build failed');

const admin = new pg.Client({ connectionString: server.toString() });
await admin.connect();
await admin.query(`drop database if exists ${database} with (force)`);
await admin.query(`create database ${database}`);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-memory-'));
try {
  const url = new URL(server);
  url.pathname = `/${database}`;
  const onPostgres = { first: await measure({ DATABASE_URL: url.toString() }), again: await measure({ DATABASE_URL: url.toString() }) };
  const embedded = { first: await measure({ DATA_DIR: dataDir }), again: await measure({ DATA_DIR: dataDir }) };
  for (const [label, m] of [['PostgreSQL', onPostgres], ['embedded', embedded]] as const) {
    console.log(`${label}: first start peak ${m.first.startPeakMb} MB, steady ${m.first.steadyMb} MB; restart peak ${m.again.startPeakMb} MB, steady ${m.again.steadyMb} MB`);
  }
  const reference = (value: number) => ({ name: 'the same on PostgreSQL', value });
  const peak = Math.max(embedded.first.startPeakMb, embedded.again.startPeakMb);
  const steady = Math.max(embedded.first.steadyMb, embedded.again.steadyMb);
  report({ id: 'P9-start', what: 'embedded: RSS peak while starting (first start and restart)', ours: peak, unit: 'MB', reference: reference(Math.max(onPostgres.first.startPeakMb, onPostgres.again.startPeakMb)), goal: '≤ 250 MB', met: peak <= 250 });
  report({ id: 'P9-steady', what: 'embedded: steady RSS, no services', ours: steady, unit: 'MB', reference: reference(Math.max(onPostgres.first.steadyMb, onPostgres.again.steadyMb)), goal: '≤ 150 MB', met: steady <= 150 });
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
}

/** Starts the built control plane with `env`, samples its memory, and stops it. */
async function measure(env: Record<string, string>): Promise<Memory> {
  const [port, grpcPort] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, [...launch.nodeOptions, 'dist/control-plane/src/main.js'], {
    cwd: root,
    env: { PATH: process.env.PATH, ...launch.env, HOST: '127.0.0.1', PORT: String(port), GRPC_PORT: String(grpcPort), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const deadline = Date.now() + 120_000;
    while (!(await ready(port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the control plane did not start (exit ${child.exitCode})`);
      await sleep(100);
    }
    const startPeakMb = status(child).hwm;
    let steadyMb = 0;
    for (let i = 0; i < STEADY_SECONDS * 4; i++) {
      await sleep(250);
      steadyMb = Math.max(steadyMb, status(child).rss);
    }
    return { startPeakMb, steadyMb };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
  }
}

function status(child: ChildProcess): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)![1]);
  return { rss: Math.round(kb('VmRSS') / 1024), hwm: Math.round(kb('VmHWM') / 1024) };
}

async function ready(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/api/v1/ready`)).ok;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}
