// What the agent benchmarks share: the agent built as it ships (tsc output run by plain
// node, not tsx), a scripted control plane, the targets in a process of their own, and a
// process's CPU time and RSS read from /proc.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

export interface BuiltAgent {
  cli: string;
  /** bench/reference/idle-stream.ts, compiled alongside. */
  idleStream: string;
  /** bench/support/null-prober-agent.ts, compiled alongside. */
  nullProberAgent: string;
  remove(): void;
}

/** Compiles the agent (and what it imports) into a folder inside the repository, so node_modules resolves. */
export function buildAgent(): BuiltAgent {
  const out = mkdtempSync(path.join(root, '.bench-agent-'));
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const flags = ['--strict', '--outDir', out, '--rootDir', root, '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--esModuleInterop', '--skipLibCheck', '--resolveJsonModule'];
  const entries = ['agent/src/cli.ts', 'bench/reference/idle-stream.ts', 'bench/support/null-prober-agent.ts'].map((file) => path.join(root, file));
  execFileSync(process.execPath, [tsc, ...entries, ...flags], { stdio: 'inherit' });
  return {
    cli: path.join(out, 'agent/src/cli.js'),
    idleStream: path.join(out, 'bench/reference/idle-stream.js'),
    nullProberAgent: path.join(out, 'bench/support/null-prober-agent.js'),
    remove: () => rmSync(out, { recursive: true, force: true }),
  };
}

export interface RunningProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The Node options the agent's systemd unit runs it with, so the benchmarks measure the agent as deployed. */
export function unitNodeOptions(): string {
  const unit = readFileSync(path.join(root, 'deploy/systemd/outpost-agent.service'), 'utf8');
  return /^Environment=NODE_OPTIONS=(.*)$/m.exec(unit)?.[1] ?? '';
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
