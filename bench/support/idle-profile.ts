// Reads a V8 CPU profile (node --cpu-prof) over a window of its run for bench/idle.ts: the
// functions where the samples fell (self time), and the same by package (the embedded
// database's WebAssembly and JavaScript, the SQL driver, the ORM, Node's own code, ours).
import path from 'node:path';
import type { CpuProfile } from './profile-parts.js';

type ProfileNode = CpuProfile['nodes'][number];

const TOP = 12;

/** The samples taken between `fromMs` and `toMs` after the profile began (the profiler starts with the process). */
export function summarizeIdleProfile(profile: CpuProfile, { fromMs, toMs, root }: { fromMs: number; toMs: number; root: string }): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));

  // A sample stands for the time since the one before it.
  const self = new Map<number, number>();
  let t = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    t += us;
    if (t >= fromMs * 1000 && t < toMs * 1000) self.set(id, (self.get(id) ?? 0) + us);
  });

  const label = (n: ProfileNode) => {
    const { functionName, url, lineNumber } = n.callFrame;
    return url ? `${functionName || '(anonymous)'} ${shortUrl(url, root)}:${lineNumber + 1}` : functionName || '(anonymous)';
  };
  const bySelf = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let busyUs = 0;
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    busyUs += us;
    add(bySelf, label(node), us);
    add(byPackage, packageOf(node.callFrame), us);
  }
  const seconds = (toMs - fromMs) / 1000;
  const rows = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([name, us]) => `    ${(us / 1000 / seconds).toFixed(3).padStart(7)} ms/s ${((100 * us) / busyUs).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  return [
    `  main thread busy ${(busyUs / 1000 / seconds).toFixed(2)} ms/s over ${seconds.toFixed(0)} s (the samples that were not idle)`,
    '  by function (self time):',
    rows(bySelf),
    '  by package:',
    rows(byPackage),
  ].join('\n');
}

function packageOf({ functionName, url }: ProfileNode['callFrame']): string {
  if (url.startsWith('wasm://')) return 'the embedded database (PGlite WebAssembly)';
  if (!url) return functionName;
  if (url.startsWith('node:')) return "Node's own JavaScript";
  const modules = /\/node_modules\/((@[^/]+\/)?[^/]+)\//.exec(url);
  if (modules) return modules[1]!;
  const ours = /\/dist\/(control-plane|agent|shared|cli)\/src\/([^/]+)/.exec(url);
  return ours ? `ours: ${ours[1]}/${ours[2]}` : url;
}

function add(m: Map<string, number>, key: string, us: number): void {
  m.set(key, (m.get(key) ?? 0) + us);
}

function shortUrl(url: string, root: string): string {
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) return file.slice(modules + '/node_modules/'.length);
  return file.startsWith(`${root}${path.sep}`) ? file.slice(root.length + 1) : file;
}
