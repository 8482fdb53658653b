// The private-network check types in P1 (issue 40): for each bench/protocols module, the agent
// checking its peer beside a bare loop making the same exchange with the least code (hand-built
// packets where practical), both on the same slots over the same window, so that a client
// library that costs much more than the exchange itself shows. The peers' own CPU is not counted.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startFakeControlPlane } from '../../test/fixtures/fake-control-plane.js';
import { assignServices, cpuMs, sleep, startAgent, startScript, type BuiltAgent, type RunningProcess } from './agent-under-test.js';

export interface Peer {
  endpoint: string;
  options: Record<string, unknown>;
  stop(): Promise<void>;
}

/** What a bench/protocols module exports. */
interface ProtocolModule {
  checkType: string;
  startPeer(): Promise<Peer>;
}

export interface ProtocolFigure {
  checkType: string;
  /** CPU µs per check. */
  agent: number;
  bare: number;
  /** The first failure of the agent's checks, when some failed (their cost is then not the exchange's). */
  failure?: string;
}

const folder = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../protocols');

export function protocolModules(): string[] {
  return readdirSync(folder)
    .filter((f) => f.endsWith('.ts'))
    .sort()
    .map((f) => path.join(folder, f));
}

export interface Pace {
  services: number;
  intervalMs: number;
  warmupMs: number;
  measureMs: number;
}

/** One round of one module's check type: the agent and the bare loop side by side. */
export async function measureProtocol(built: BuiltAgent, file: string, pace: Pace): Promise<ProtocolFigure> {
  const module = (await import(file)) as ProtocolModule;
  const peer = await module.startPeer();
  const cp = await startFakeControlPlane({ heartbeatIntervalSeconds: 5 });
  const subjects: RunningProcess[] = [];
  try {
    assignServices(cp, pace.services, module.checkType, peer.endpoint, pace.intervalMs, peer.options);
    subjects.push(startAgent(built.cli, cp.address));
    while (cp.openStreams() === 0) await sleep(50);
    const target = Buffer.from(JSON.stringify({ endpoint: peer.endpoint, options: peer.options })).toString('base64');
    const bare = await startScript<{ windowStart: number; windowEnd: number }>('bare-loop.ts', [
      `protocol:${file}`,
      target,
      String(pace.services),
      String(pace.intervalMs),
      String(pace.warmupMs),
      String(pace.measureMs),
    ]);
    subjects.push(bare);
    const { windowStart, windowEnd } = bare.first;
    const pids = subjects.map((s) => s.child.pid!);
    await sleep(windowStart - Date.now());
    const before = pids.map(cpuMs);
    await sleep(windowEnd - Date.now());
    const [agentCpu, bareCpu] = pids.map((pid, i) => cpuMs(pid) - before[i]!);
    const { checks: bareChecks } = JSON.parse((await bare.lines.next()).value as string) as { checks: number };
    await sleep(1_000);
    const checks = [...cp.stored.values()].filter((r) => r.checkedAtMs >= windowStart && r.checkedAtMs < windowEnd);
    const failed = checks.find((r) => !r.ok);
    return {
      checkType: module.checkType,
      agent: (agentCpu! * 1000) / checks.length,
      bare: (bareCpu! * 1000) / bareChecks,
      ...(failed ? { failure: `${checks.filter((r) => !r.ok).length} of ${checks.length} failed: ${failed.message}` } : {}),
    };
  } finally {
    for (const subject of subjects.reverse()) await subject.stop();
    await cp.stop();
    await peer.stop();
  }
}
