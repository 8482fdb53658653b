// Where a process's CPU went: the self time per function of a V8 CPU profile (`node --cpu-prof`),
// over a window of it, as lines for the person watching.
// (Rewritten by helper "bench" at 08:41 UTC after it overwrote this file by mistake; the first
// version was helper "idle"'s. Same export and signature as bench/idle.ts calls it.)
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** µs between a sample and the one before it (the first: since startTime). */
  timeDeltas: number[];
}

export interface SummaryOptions {
  /** The window, in ms after the profile's start (about the process's start under --cpu-prof). */
  fromMs?: number;
  toMs?: number;
  /** The checkout, left out of file names. */
  root?: string;
  /** How many functions to list. */
  top?: number;
}

/** The busy time of the window and the functions of most self time in it. */
export function summarizeProfile(profile: CpuProfile, options: SummaryOptions = {}): string {
  const { fromMs = 0, toMs = Infinity, root, top = 20 } = options;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
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
    const fn = `${frame.functionName || '(anonymous)'}${frame.url ? ` ${shortUrl(frame.url, root)}:${frame.lineNumber + 1}` : ''}`;
    self.set(fn, (self.get(fn) ?? 0) + us);
  });
  const pct = (us: number) => `${((100 * us) / busyUs).toFixed(1)}%`;
  return [
    `  ${(busyUs / 1000).toFixed(0)} ms busy, ${(idleUs / 1000).toFixed(0)} ms idle on the main thread; top self time:`,
    ...[...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([fn, us]) => `    ${pct(us).padStart(6)}  ${(us / 1000).toFixed(0).padStart(6)} ms  ${fn}`),
  ].join('\n');
}

function shortUrl(url: string, root?: string): string {
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) return file.slice(modules + '/node_modules/'.length);
  return root && file.startsWith(`${root}${path.sep}`) ? file.slice(root.length + 1) : file;
}
