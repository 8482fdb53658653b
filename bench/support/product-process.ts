// The product as `npm start` runs it, in a process of its own: the same build steps first, then
// the built control plane with the start script's environment and Node options (read from
// package.json), on free loopback ports and a fresh data folder. Its CPU is read from /proc, so
// the benchmarks that start it measure nothing of their own process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { npmStartLaunch } from '../../test/support/start-command.js';
import { sleep, stopChild } from './agent-under-test.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export interface Product {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  /** performance.now() when it was spawned: about the start of a profile it writes under --cpu-prof. */
  spawnedAt: number;
  /** Opens the inspector (SIGUSR1) on the port chosen at start, and resolves with its WebSocket URL. */
  openInspector(): Promise<string>;
  stop(): Promise<void>;
}

/** The build steps of `npm start` that the control plane needs (the dashboard's build is left out: nothing here loads it). */
export function buildProduct(): void {
  for (const script of ['scripts/build.mjs', 'scripts/build-pglite-template.mjs']) {
    const run = spawnSync(process.execPath, [script], { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) throw new Error(`${script} failed`);
  }
}

/**
 * Starts the built control plane with `env` over the start script's own (HOST, ports and a
 * fresh DATA_DIR are set here), and waits until /api/v1/ready answers. `nodeOptions` are added
 * to the start script's. Its log goes to /dev/null, as cheap as a terminal that keeps up.
 */
export async function startProduct(env: Record<string, string>, nodeOptions: string[] = []): Promise<Product> {
  const launch = npmStartLaunch();
  const [port, grpcPort] = [await freePort(), await freePort()];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-product-'));
  // --inspect-port only chooses the port: the inspector stays closed, and costs nothing, until SIGUSR1.
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...launch.nodeOptions, '--inspect-port=127.0.0.1:0', ...nodeOptions, 'dist/control-plane/src/main.js'], {
    cwd: root,
    env: { PATH: process.env.PATH, ...launch.env, HOST: '127.0.0.1', PORT: String(port), GRPC_PORT: String(grpcPort), DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr = createInterface({ input: child.stderr! });
  const inspector: string[] = [];
  const errors: string[] = [];
  stderr.on('line', (line) => {
    const url = /Debugger listening on (ws:\/\/\S+)/.exec(line)?.[1];
    if (url) inspector.push(url);
    else if (!line.startsWith('For help, see')) errors.push(line);
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 180_000;
    while (!(await answers(`${baseUrl}/api/v1/ready`))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the control plane did not start (exit ${child.exitCode}): ${errors.slice(-20).join('\n')}`);
      await sleep(200);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    child,
    pid: child.pid!,
    baseUrl,
    spawnedAt,
    async openInspector() {
      child.kill('SIGUSR1');
      for (let i = 0; i < 100 && inspector.length === 0; i++) await sleep(50);
      if (!inspector[0]) throw new Error('the control plane did not open its inspector');
      return inspector[0];
    },
    stop,
  };
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5_000) })).ok;
  } catch {
    return false;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface ProcessCpu {
  /** All of it: every thread of the process and of its descendants, and its reaped children. */
  totalMs: number;
  /** The main thread alone (JavaScript, and the embedded database's WebAssembly, run there). */
  mainThreadMs: number;
}

/** CPU time so far of every thread of a process and its live descendants, and of its reaped children. */
export interface CpuSnapshot {
  pid: number;
  /** ns by "pid/tid". */
  threads: Map<string, number>;
  reapedMs: number;
}

/**
 * Threads from schedstat (nanoseconds, finer than stat's 10 ms ticks), the process's and its
 * live descendants', and its reaped children from stat's cutime and cstime.
 */
export function cpuSnapshot(pid: number): CpuSnapshot {
  const threads = new Map<string, number>();
  for (const p of [pid, ...descendants(pid)]) {
    try {
      for (const thread of readdirSync(`/proc/${p}/task`)) {
        try {
          threads.set(`${p}/${thread}`, Number(readFileSync(`/proc/${p}/task/${thread}/schedstat`, 'utf8').split(' ')[0]));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
    } catch (err) {
      // A descendant that ended since the listing: its time is in reapedMs once its parent waits for it.
      if (p === pid || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  const stat = statFields(pid);
  return { pid, threads, reapedMs: (Number(stat[13]) + Number(stat[14])) * 10 };
}

/**
 * The CPU spent between two snapshots, thread by thread: a thread that ended in between counts
 * for nothing instead of taking its whole life's time off the sum (a sum over the live threads
 * alone went negative when one ended), one that started counts whole.
 */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): ProcessCpu {
  let ns = 0;
  for (const [thread, t] of after.threads) ns += Math.max(0, t - (before.threads.get(thread) ?? 0));
  const main = `${after.pid}/${after.pid}`;
  return { totalMs: ns / 1e6 + after.reapedMs - before.reapedMs, mainThreadMs: ((after.threads.get(main) ?? 0) - (before.threads.get(main) ?? 0)) / 1e6 };
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is the state. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parentOf.set(Number(entry), Number(statFields(Number(entry))[1]));
    } catch {
      // Gone between the listing and the read.
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, p] of parentOf) {
      if (p === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}
