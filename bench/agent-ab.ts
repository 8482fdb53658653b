// Two builds of the agent side by side, to tell whether a change to its per-check path helps:
// P1 (bench/agent-cpu.ts) is too coarse for that, with three rounds whose ratios spread by a
// tenth on this machine, and CPU read in 10 ms ticks. Here each build runs the same TCP
// services (or, with `null`, a prober that answers at once) against its own scripted control
// plane, with the bare loop beside them as a yardstick. All three are measured over the same
// windows after a warm-up, from every thread's schedstat, and the tool prints each window and
// the median ratios. Two identical builds measure 1.00x to 1.01x (median of 8 windows), while
// single windows spread from 0.97x to 1.06x.
//
//   npx tsx bench/agent-ab.ts BASE_TREE CANDIDATE_TREE [tcp|null] [WINDOWS] [WINDOW_MS]
//
// A tree is a checkout of this repository with its node_modules; for example,
// `git worktree add /tmp/base main && ln -s "$PWD/node_modules" /tmp/base/` against this checkout (`.`).
import path from 'node:path';
import { startFakeControlPlane, type FakeControlPlane } from '../test/fixtures/fake-control-plane.js';
import { assignServices, buildAgent, sleep, startAgent, startNullProberAgent, startScript, threadsCpuMs, type BuiltAgent, type RunningProcess } from './support/agent-under-test.js';
import { medianRatioRound } from './support/report.js';

const [baseTree, candidateTree, kind = 'tcp', windowsArg = '8', windowArg = '12000'] = process.argv.slice(2);
if (!baseTree || !candidateTree || (kind !== 'tcp' && kind !== 'null')) {
  throw new Error('usage: npx tsx bench/agent-ab.ts BASE_TREE CANDIDATE_TREE [tcp|null] [WINDOWS] [WINDOW_MS]');
}
const RATE = 400; // checks per second, as P1's quick size
const INTERVAL_MS = 5_000;
const SERVICES = (RATE * INTERVAL_MS) / 1000;
const WARMUP_MS = 25_000;
const WINDOWS = Number(windowsArg);
const WINDOW_MS = Number(windowArg);

const median = (values: number[]) => medianRatioRound(values, (ratio) => ratio);

const builds: BuiltAgent[] = [];
const controlPlanes: FakeControlPlane[] = [];
const subjects: RunningProcess[] = [];
const targets = await startScript<{ tcp: number }>('targets.ts', []);
try {
  for (const tree of [baseTree, candidateTree]) builds.push(await buildAgent(path.resolve(tree)));
  for (const built of builds) {
    const cp = await startFakeControlPlane({ heartbeatIntervalSeconds: 5 });
    controlPlanes.push(cp);
    assignServices(cp, SERVICES, 'TCP', `127.0.0.1:${targets.first.tcp}`, INTERVAL_MS);
    subjects.push(kind === 'tcp' ? startAgent(built.cli, cp.address) : startNullProberAgent(built, cp.address));
    while (cp.openStreams() === 0) await sleep(50);
  }
  const bareArgs = [kind === 'tcp' ? 'tcp' : 'none', String(targets.first.tcp), String(SERVICES), String(INTERVAL_MS), String(WARMUP_MS), String(WINDOWS * WINDOW_MS + 5_000)];
  subjects.push(await startScript('bare-loop.ts', bareArgs));
  await sleep(WARMUP_MS);

  const ratios = { candidate: [] as number[], base: [] as number[], candidateToBare: [] as number[] };
  for (let w = 0; w < WINDOWS; w++) {
    const pids = subjects.map((s) => s.child.pid!);
    const startedAt = Date.now();
    const cpuBefore = pids.map(threadsCpuMs);
    const storedBefore = controlPlanes.map((cp) => cp.stored.size);
    await sleep(WINDOW_MS);
    const cpu = pids.map((pid, i) => threadsCpuMs(pid) - cpuBefore[i]!);
    const checksDue = (RATE * (Date.now() - startedAt)) / 1000;
    const [base, candidate] = [0, 1].map((i) => (cpu[i]! * 1000) / (controlPlanes[i]!.stored.size - storedBefore[i]!));
    const bare = (cpu[2]! * 1000) / checksDue;
    ratios.candidate.push(candidate! / base!);
    ratios.base.push(base! / bare);
    ratios.candidateToBare.push(candidate! / bare);
    console.log(`window ${w + 1}: base ${base!.toFixed(1)}, candidate ${candidate!.toFixed(1)}, bare loop ${bare.toFixed(1)} µs CPU per check; candidate/base ${(candidate! / base!).toFixed(3)}`);
  }
  console.log(`median of ${WINDOWS} windows: candidate/base ${median(ratios.candidate).toFixed(3)}; base/bare loop ${median(ratios.base).toFixed(3)}; candidate/bare loop ${median(ratios.candidateToBare).toFixed(3)}`);
} finally {
  for (const subject of subjects.reverse()) await subject.stop();
  for (const cp of controlPlanes) await cp.stop();
  await targets.stop();
  for (const built of builds) built.remove();
}
