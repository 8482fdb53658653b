// P2: the agent with many services at a 10 s interval (10,000 with --full, 2,000 at the quick
// size), fed by a scripted control plane, each service a TCP check of a local listener.
// Figures: checks/s achieved against due, p99 schedule lateness (the start of a run after its
// slot, from the results' own start times) against a bare Node process with one timer per
// service making the same connections (bench/reference/bare-loop.ts), and the agent's RSS
// idle (connected, no services; beside a process that only holds the same gRPC stream open,
// bench/reference/idle-stream.ts) and with every service running.
//
//   node --import tsx bench/agent-scale.ts [--full]
import { nextSlot, offsetMs } from '../agent/src/scheduler/slots.js';
import { startFakeControlPlane, type FakeControlPlane } from '../test/fixtures/fake-control-plane.js';
import { anonymousRssMb, assignServices, buildAgent, rssMb, sleep, startAgent, startCompiled, startScript, type RunningProcess } from './support/agent-under-test.js';
import { fullSize, percentile, report } from './support/report.js';

const SERVICES = fullSize ? 10_000 : 2_000;
const INTERVAL_MS = 10_000;
// The first interval is the snapshot spreading itself over the slots; one more settles it.
const WARMUP_MS = 2 * INTERVAL_MS;
const MEASURE_MS = fullSize ? 60_000 : 20_000;
// Idle memory is read this long after connecting. V8 keeps the young generation that start-up
// grew (8 MB) until its memory reducer runs, about 10 s after the last collection; what a
// long idle run holds is what is left after that.
const IDLE_SETTLE_MS = 30_000;

const built = await buildAgent();
const targets = await startScript<{ tcp: number }>('targets.ts', []);
let cp: FakeControlPlane | undefined;
try {
  cp = await startFakeControlPlane({ heartbeatIntervalSeconds: 5 });
  const idle = await measureIdle(cp, (address) => startAgent(built.cli, address));
  const idleReference = await measureIdle(cp, (address) => startCompiled(built.idleStream, [address, 'good-token']));
  assignServices(cp, SERVICES, 'TCP', `127.0.0.1:${targets.first.tcp}`, INTERVAL_MS);
  const ours = await measureAgent(cp);
  await cp.stop();
  cp = undefined;
  const bare = await measureBareLoop(targets.first.tcp);

  const due = SERVICES / (INTERVAL_MS / 1000);
  const size = `${SERVICES.toLocaleString('en')} services at 10 s${fullSize ? '' : ' (quick size; --full runs 10,000)'}`;
  report({ id: 'P2-rate', what: `agent checks/s achieved, ${size}`, ours: ours.checksPerSecond, unit: 'checks/s', reference: { name: 'due', value: due }, goal: 'keeps up (≥ 0.99x due)', met: ours.checksPerSecond >= 0.99 * due });
  report({ id: 'P2-late', what: `agent p99 schedule lateness, ${size}`, ours: ours.p99, unit: 'ms', reference: { name: 'bare Node loop with one timer per service', value: bare.p99 }, goal: '≤ reference + 10 ms', met: ours.p99 <= bare.p99 + 10 });
  report({ id: 'P2-idle', what: 'agent RSS idle (connected, no services)', ours: idle.rss, unit: 'MB', reference: { name: 'a process holding the same gRPC stream', value: idleReference.rss }, goal: '≤ 50 MB', met: idle.rss <= 50 });
  report({ id: 'P2-rss', what: `agent RSS (peak over the measured window), ${size}`, ours: ours.peakRss, unit: 'MB', reference: null, goal: '≤ 120 MB at 10,000', met: ours.peakRss <= 120 });
  console.log(`bare loop: ${bare.checksPerSecond.toFixed(0)} checks/s; agent p50 lateness ${ours.p50} ms, bare ${bare.p50} ms; agent RSS at the end ${ours.lastRss.toFixed(1)} MB`);
  console.log(`idle, of the RSS not shared with other processes (the rest is the node binary's pages): agent ${idle.anonymous.toFixed(1)} MB, the stream alone ${idleReference.anonymous.toFixed(1)} MB`);
} finally {
  await cp?.stop();
  await targets.stop();
  built.remove();
}

async function measureIdle(controlPlane: FakeControlPlane, start: (address: string) => RunningProcess): Promise<{ rss: number; anonymous: number }> {
  const subject = start(controlPlane.address);
  try {
    await waitFor(() => controlPlane.openStreams() === 1, 30_000, 'the idle process to connect');
    await sleep(IDLE_SETTLE_MS);
    return { rss: rssMb(subject.child.pid!), anonymous: anonymousRssMb(subject.child.pid!) };
  } finally {
    await subject.stop();
    await waitFor(() => controlPlane.openStreams() === 0, 10_000, 'the idle process to disconnect');
  }
}

async function measureAgent(controlPlane: FakeControlPlane) {
  const agent = startAgent(built.cli, controlPlane.address);
  try {
    await waitFor(() => controlPlane.openStreams() === 1, 30_000, 'the agent to connect');
    const windowStart = Date.now() + WARMUP_MS;
    const windowEnd = windowStart + MEASURE_MS;
    let peakRss = 0;
    let lastRss = 0;
    while (Date.now() < windowEnd + 2_000) {
      await sleep(1_000);
      lastRss = rssMb(agent.child.pid!);
      if (Date.now() >= windowStart) peakRss = Math.max(peakRss, lastRss);
    }
    const lateness: number[] = [];
    for (const r of controlPlane.stored.values()) {
      if (r.checkedAtMs < windowStart || r.checkedAtMs >= windowEnd) continue;
      // Time since the slot before the start; a timer may fire a millisecond early, which
      // reads as almost a whole interval late and counts as on time (as the agent counts it).
      const sinceSlot = r.checkedAtMs - (nextSlot(r.checkedAtMs + 1, INTERVAL_MS, offsetMs(r.serviceId, INTERVAL_MS)) - INTERVAL_MS);
      lateness.push(sinceSlot > INTERVAL_MS / 2 ? 0 : sinceSlot);
    }
    lateness.sort((a, b) => a - b);
    return { checksPerSecond: lateness.length / (MEASURE_MS / 1000), p50: percentile(lateness, 50), p99: percentile(lateness, 99), peakRss, lastRss };
  } finally {
    await agent.stop();
  }
}

async function measureBareLoop(port: number) {
  const bare = await startScript<{ ready: true }>('bare-loop.ts', ['tcp', String(port), String(SERVICES), String(INTERVAL_MS), String(WARMUP_MS), String(MEASURE_MS)]);
  try {
    const line = await bare.lines.next();
    const { checks, lateness } = JSON.parse(line.value as string) as { checks: number; lateness: number[] };
    return { checksPerSecond: checks / (MEASURE_MS / 1000), p50: percentile(lateness, 50), p99: percentile(lateness, 99) };
  } finally {
    await bare.stop();
  }
}

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
