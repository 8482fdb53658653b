// What the agent benchmarks share: the agent bundled as the Debian package ships it
// (deploy/agent-bundle.mjs, run by plain node, not tsx), a scripted control plane, the
// targets in a process of their own, and a process's CPU time and RSS read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { bundleAgent } from '../../deploy/agent-bundle.mjs';
import type { Assignment } from '../../shared/src/gen/agent.js';
import type { FakeControlPlane } from '../../test/fixtures/fake-control-plane.js';
import { serviceId } from '../reference/service-ids.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export interface BuiltAgent {
  cli: string;
  /** bench/reference/idle-stream.ts, bundled alongside. */
  idleStream: string;
  /** bench/support/null-prober-agent.ts, bundled alongside. */
  nullProberAgent: string;
  remove(): void;
}

/**
 * Bundles the agent, and each script run beside it, into a folder inside the repository (so
 * the native packages resolve from node_modules), for the Node.js running the benchmark. One
 * bundle each: in one build the scripts' entry points would split the agent's code into other
 * chunks than the package's. `tree` is the checkout whose sources are bundled (another one, with
 * its own node_modules, to compare two builds: bench/agent-ab.ts).
 */
export async function buildAgent(tree = root): Promise<BuiltAgent> {
  const out = mkdtempSync(path.join(root, '.bench-agent-'));
  const nodeMajor = process.versions.node.split('.')[0]!;
  const { name: packageName, version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const bundle = async (name: string, file: string) => {
    const outdir = path.join(out, name);
    await bundleAgent({ entryPoints: { [name]: path.join(tree, file) }, outdir, nodeMajor });
    // The package's lib/package.json (deploy/debian/build.mjs), without its install marker, so
    // that Node's ESM loader finds the entry's package scope there, as in the package, instead of
    // searching every folder up to the repository's root (see the end of bundleAgent).
    writeFileSync(path.join(outdir, 'package.json'), JSON.stringify({ name: packageName, version, private: true, type: 'module' }));
    return path.join(outdir, `${name}.js`);
  };
  return {
    cli: await bundle('cli', 'agent/src/cli.ts'),
    idleStream: await bundle('idle-stream', 'bench/reference/idle-stream.ts'),
    nullProberAgent: await bundle('null-prober-agent', 'bench/support/null-prober-agent.ts'),
    remove: () => rmSync(out, { recursive: true, force: true }),
  };
}

/**
 * Hands the scripted control plane `count` services of one check type on `endpoint`, every
 * `intervalMs`, with the ids the bare loop uses (so both fire on the same slots).
 */
export function assignServices(cp: FakeControlPlane, count: number, checkType: string, endpoint: string, intervalMs: number, options: Record<string, unknown> = {}): void {
  for (let i = 0; i < count; i++) {
    const a: Assignment = { serviceId: serviceId(i), version: 1, checkType, endpoint, intervalSeconds: intervalMs / 1000, timeoutSeconds: 5, options };
    cp.assignments.set(a.serviceId, a);
  }
}

export interface RunningProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The Node options the agent's systemd unit runs it with, so the benchmarks measure the agent as deployed. */
export function unitNodeOptions(): string {
  const unit = readFileSync(path.join(root, 'deploy/systemd/outpost-agent.service'), 'utf8');
  return /^Environment="?NODE_OPTIONS=([^"\n]*)"?$/m.exec(unit)?.[1] ?? '';
}

/** `outpost-agent run` against `server` with a fresh data directory (removed on stop), with the unit's Node options. */
export function startAgent(cli: string, server: string): RunningProcess {
  return withDataDir((dataDir) => startCompiled(cli, ['run', '--server', server, '--token', 'good-token', '--location', 'bench', '--data-dir', dataDir, '--log-level', 'error']));
}

/** The agent with a prober that answers at once (bench/support/null-prober-agent.ts), like startAgent. */
export function startNullProberAgent(built: BuiltAgent, server: string): RunningProcess {
  return withDataDir((dataDir) => startCompiled(built.nullProberAgent, [server, dataDir]));
}

function withDataDir(start: (dataDir: string) => RunningProcess): RunningProcess {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'outpost-bench-agent-'));
  const agent = start(dataDir);
  return {
    child: agent.child,
    async stop() {
      await agent.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A script of the agent build, run by plain node with the unit's Node options, as the agent is. */
export function startCompiled(file: string, args: string[]): RunningProcess {
  const child = spawn(process.execPath, [file, ...args], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, NODE_OPTIONS: unitNodeOptions() } });
  return { child, stop: () => stopChild(child) };
}

/** Runs a TypeScript script of bench/reference (through tsx); resolves once it printed its first JSON line. */
export async function startScript<T>(script: string, args: string[]): Promise<RunningProcess & { first: T; lines: AsyncIterator<string> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/reference', script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new Error(`${script} exited before it was ready`);
  return { child, first: JSON.parse(first.value) as T, lines, stop: () => stopChild(child) };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/** User plus system CPU time of a process so far, in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * CPU time of a process so far, in ms, summed over its threads from schedstat (nanoseconds):
 * finer than cpuMs's 10 ms ticks, which at 400 checks/s over 10 s resolve 2.5 µs per check.
 * A thread that has ended no longer counts, so compare it only over windows in which a
 * process's threads live on (Node's do).
 */
export function threadsCpuMs(pid: number): number {
  let ns = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return ns / 1e6;
}

/** Resident set size of a process, in MB. */
export function rssMb(pid: number): number {
  return statusMb(pid, 'VmRSS');
}

/** The resident memory no other process shares: the heap and the rest of what it allocated, in MB. */
export function anonymousRssMb(pid: number): number {
  return statusMb(pid, 'RssAnon');
}

function statusMb(pid: number, field: string): number {
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) / 1024;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
