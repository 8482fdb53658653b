// Where a running process's CPU goes, by part: a V8 CPU profile taken through the inspector of
// the process (or written by `node --cpu-prof`), summed as the share of sampled time whose stack
// runs each part (the agent, the embedded database, the rest), and as self time per function.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import WebSocket from 'ws';
import { sleep } from './agent-under-test.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** µs between a sample and the one before it (the first: since startTime). */
  timeDeltas: number[];
}

/** Names the part of the program a sample's stack (innermost frame first) belongs to. */
export type Classify = (stack: readonly CallFrame[]) => string;

export interface ProfileSummary {
  /** Sampled time, idle excluded, in ms. */
  busyMs: number;
  idleMs: number;
  /** Busy time per part (`classify`), largest first. */
  parts: { name: string; ms: number }[];
  /**
   * Busy time whose stack runs a module (a package, or a folder of ours) anywhere, largest first.
   * A middleware is on the stack of everything after it: its figure says little of its own cost.
   */
  inclusive: { name: string; ms: number }[];
  /** Self time per module of the innermost frame (Node's own and native frames under their caller's), largest first. */
  selfModules: { name: string; ms: number }[];
  /** Self time per function, largest first. */
  top: { name: string; ms: number }[];
}

/** Profiles the process behind an inspector WebSocket for `ms`, sampling every `intervalUs`. */
export async function profileThroughInspector(inspectorUrl: string, ms: number, intervalUs = 1000): Promise<CpuProfile> {
  const ws = new WebSocket(inspectorUrl);
  await once(ws, 'open');
  const pending = new Map<number, { resolve(v: any): void; reject(e: Error): void }>();
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id!);
    if (message.error) waiting.reject(new Error(message.error.message));
    else waiting.resolve(message.result);
  });
  let id = 0;
  const send = <T = unknown>(method: string, params: object = {}) =>
    new Promise<T>((resolve, reject) => {
      pending.set(++id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await send('Profiler.enable');
    await send('Profiler.setSamplingInterval', { interval: intervalUs });
    await send('Profiler.start');
    await sleep(ms);
    return (await send<{ profile: CpuProfile }>('Profiler.stop')).profile;
  } finally {
    ws.close();
  }
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

/** Sums the samples taken between `fromMs` and `toMs` after the profile's start (e.g. to leave out a process's start-up). */
export function profileParts(profile: CpuProfile, classify: Classify, fromMs = 0, toMs = Infinity): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  // Per node (a stack is the same on every sample of it): its part and the modules on its stack.
  const known = new Map<number, { part: string; modules: Set<string>; selfModule: string }>();
  const describe = (id: number) => {
    let found = known.get(id);
    if (!found) {
      const stack: CallFrame[] = [];
      for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) stack.push(byId.get(at)!.callFrame);
      const modules = stack.map((f) => moduleOf(f.url));
      found = { part: classify(stack), modules: new Set(modules.filter((m): m is string => m !== undefined)), selfModule: modules.find((m) => m !== undefined) ?? stack[0]!.functionName };
      known.set(id, found);
    }
    return found;
  };
  const parts = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const selfModules = new Map<string, number>();
  const self = new Map<string, number>();
  const add = (m: Map<string, number>, key: string, us: number) => m.set(key, (m.get(key) ?? 0) + us);
  let idleUs = 0;
  let busyUs = 0;
  let t = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    t += us;
    if (t < fromMs * 1000 || t >= toMs * 1000) return;
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') {
      idleUs += us;
      return;
    }
    busyUs += us;
    const { part, modules, selfModule } = describe(id);
    add(parts, part, us);
    add(selfModules, selfModule, us);
    for (const m of modules) add(inclusive, m, us);
    add(self, `${frame.functionName || '(anonymous)'}${frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''}`, us);
  });
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000 }));
  return { busyMs: busyUs / 1000, idleMs: idleUs / 1000, parts: sorted(parts), inclusive: sorted(inclusive), selfModules: sorted(selfModules), top: sorted(self) };
}

/** The summary as lines: each part's share, the modules of most inclusive time, the functions of most self time. */
export function formatParts(summary: ProfileSummary, topCount = 15): string {
  const pct = (ms: number) => `${((100 * ms) / summary.busyMs).toFixed(1)}%`.padStart(6);
  const row = (r: { name: string; ms: number }) => `    ${pct(r.ms)}  ${r.ms.toFixed(0).padStart(6)} ms  ${r.name}`;
  return [
    `  profile: ${Math.round(summary.busyMs)} ms busy, ${Math.round(summary.idleMs)} ms idle on the main thread`,
    `  by part:`,
    ...summary.parts.map(row),
    `  self time by module (the innermost frame of ours or of a package; Node's own and native code under its caller):`,
    ...summary.selfModules.slice(0, topCount).map(row),
    `  modules on the stack (inclusive; a sample counts for each module on its stack):`,
    ...summary.inclusive.slice(0, topCount).map(row),
    `  self time by function:`,
    ...summary.top.slice(0, topCount).map(row),
  ].join('\n');
}

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

function shortUrl(url: string): string {
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) return file.slice(modules + '/node_modules/'.length);
  return file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
}

/** A frame's module: an npm package or a folder of ours (control-plane/src/http, agent/src/probers). */
function moduleOf(url: string): string | undefined {
  if (!url) return undefined;
  // Node's own frames sit at the bottom of nearly every stack: counted, they would say nothing.
  if (url.startsWith('node:')) return undefined;
  if (url.startsWith('wasm://')) return 'WebAssembly';
  const file = shortUrl(url);
  if (url.includes('/node_modules/')) {
    const [scope, name] = file.split('/');
    return scope!.startsWith('@') ? `${scope}/${name}` : scope;
  }
  const ours = /^dist\/([a-z-]+\/src)\/(?:(features\/[^/]+|[^/]+)\/)?/.exec(file);
  if (ours) return ours[2] ? `${ours[1]}/${ours[2]}` : ours[1];
  return file;
}

/** The parts of the product's main thread: its agent, its embedded database, V8's own work, and the rest. */
export const PART = {
  gc: 'garbage collector',
  /** Native code outside JavaScript (the event loop, system calls), and the sampler's own work. */
  native: 'native, not attributed ((program))',
  agent: 'embedded agent (stacks through agent/src)',
  database: 'embedded database (PGlite)',
  rest: 'control plane and the rest',
} as const;

export const classifyProduct: Classify = (stack) => {
  const leaf = stack[0]!.functionName;
  if (leaf === '(garbage collector)') return PART.gc;
  if (leaf === '(program)') return PART.native;
  if (stack.some((f) => f.url.includes('/agent/src/'))) return PART.agent;
  if (stack.some((f) => f.url.includes('@electric-sql/pglite') || f.url.startsWith('wasm://'))) return PART.database;
  return PART.rest;
};
