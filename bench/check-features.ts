// V1 (issue 38): what assertions, decompression and the HTTP paths that are not hand-written
// (HTTP/2 and proxies through undici) cost per check, beside today's plain HTTP check and the
// bare Node loop of P1. Each variant is a round of its own: the agent checking SERVICES
// services of that variant, and the bare loop making plain HTTP/1.1 connections on the same
// slots, side by side over the same window (this machine's speed drifts; subjects measured
// together see the same drift, so the ratio holds). CPU: utime + stime from /proc, divided by
// the checks started in the window.
//
// Variants: plain (the P1 check), json (the same on a 1.3 kB JSON body), assertions (five on that
// body: status, header, two JSONPath, response time; judged against json), json-20k and
// assertions-20k (the same on a 20 kB body, issue 44; also beside the bare loop's plain check), gzip (a compressed JSON body decoded, with a keyword and a JSONPath
// assertion), https (HTTP/1.1 over TLS, hand-written), http2 (the same server over HTTP/2,
// undici), proxy (the plain check through a forward proxy, undici).
//
//   node --import tsx bench/check-features.ts [--full]
import type { Assignment } from '../shared/src/gen/agent.js';
import { startFakeControlPlane } from '../test/fixtures/fake-control-plane.js';
import { serviceId } from './reference/service-ids.js';
import { buildAgent, cpuMs, sleep, startAgent, startScript, type RunningProcess } from './support/agent-under-test.js';
import { fullSize, report } from './support/report.js';

const RATE = fullSize ? 400 : 200; // checks per second
const INTERVAL_MS = 5_000;
const SERVICES = (RATE * INTERVAL_MS) / 1000;
// As P1: V8 compiles the hot paths over the first tens of seconds; the steady state is what counts.
const WARMUP_MS = fullSize ? 20_000 : 12_000;
const MEASURE_MS = fullSize ? 20_000 : 10_000;

interface Ports {
  http: number;
  https: number;
  proxy: number;
}

interface Variant {
  name: string;
  what: string;
  checkType: string;
  endpoint: (p: Ports) => string;
  options: (p: Ports) => Record<string, unknown>;
}

const FIVE_ASSERTIONS = [
  { source: 'status', comparison: 'equals', target: 200 },
  { source: 'header', property: 'content-type', comparison: 'contains', target: 'json' },
  { source: 'json', property: '$.status', comparison: 'equals', target: 'UP' },
  { source: 'json', property: '$.checks[*].status', comparison: 'equals', target: 'UP', match: 'all' },
  { source: 'response_time_ms', comparison: 'less_than', target: 2000 },
];

const VARIANTS: Variant[] = [
  { name: 'plain', what: 'plain HTTP check (P1)', checkType: 'HTTP', endpoint: (p) => `http://127.0.0.1:${p.http}/`, options: () => ({}) },
  { name: 'json', what: 'HTTP check of the JSON body, nothing asserted', checkType: 'HTTP', endpoint: (p) => `http://127.0.0.1:${p.http}/json`, options: () => ({}) },
  {
    name: 'assertions',
    what: 'HTTP check with 5 assertions on a JSON body',
    checkType: 'HTTP',
    endpoint: (p) => `http://127.0.0.1:${p.http}/json`,
    options: () => ({ assertions: FIVE_ASSERTIONS }),
  },
  { name: 'json-20k', what: 'HTTP check of a 20 kB JSON body, nothing asserted', checkType: 'HTTP', endpoint: (p) => `http://127.0.0.1:${p.http}/json-20k`, options: () => ({}) },
  {
    name: 'assertions-20k',
    what: 'HTTP check with 5 assertions on a 20 kB JSON body (P1, issue 44)',
    checkType: 'HTTP',
    endpoint: (p) => `http://127.0.0.1:${p.http}/json-20k`,
    options: () => ({ assertions: FIVE_ASSERTIONS }),
  },
  {
    name: 'gzip',
    what: 'HTTP check of a gzip body, decoded, keyword and a JSONPath assertion',
    checkType: 'HTTP',
    endpoint: (p) => `http://127.0.0.1:${p.http}/gzip`,
    options: () => ({ keyword: 'dependency-11', assertions: [{ source: 'json', property: '$.status', comparison: 'equals', target: 'UP' }] }),
  },
  { name: 'https', what: 'HTTPS check, HTTP/1.1 (hand-written)', checkType: 'HTTPS', endpoint: (p) => `https://127.0.0.1:${p.https}/`, options: () => ({ verify_tls: false }) },
  { name: 'http2', what: 'HTTPS check, HTTP/2 (undici)', checkType: 'HTTPS', endpoint: (p) => `https://127.0.0.1:${p.https}/`, options: () => ({ verify_tls: false, http_version: '2' }) },
  { name: 'proxy', what: 'HTTP check through a forward proxy (undici)', checkType: 'HTTP', endpoint: (p) => `http://127.0.0.1:${p.http}/`, options: (p) => ({ proxy: `http://127.0.0.1:${p.proxy}` }) },
];

interface Round {
  agent: number;
  bare: number;
}

const built = await buildAgent();
const targets = await startScript<Ports>('feature-targets.ts', []);
const rounds = new Map<string, Round>();
try {
  for (const variant of VARIANTS) rounds.set(variant.name, await measure(variant, targets.first));
} finally {
  await targets.stop();
  built.remove();
}

const plain = rounds.get('plain')!;
const https = rounds.get('https')!;
for (const variant of VARIANTS) {
  const r = rounds.get(variant.name)!;
  const { round: base, name } = referenceOf(variant.name);
  console.log(`V1 ${variant.name}: agent ${r.agent.toFixed(0)} µs CPU/check, bare loop ${r.bare.toFixed(0)} µs in the same window (${(r.agent / r.bare).toFixed(2)}x); ${(r.agent / r.bare / (base.agent / base.bare)).toFixed(2)}x the ${name}`);
}
report({ id: 'V1-plain-bare', what: `agent CPU per plain HTTP check at ${RATE} checks/s`, ours: plain.agent, unit: 'µs CPU/check', reference: { name: 'bare Node loop', value: plain.bare }, goal: '≤ 1.05x (P1)', met: plain.agent <= 1.05 * plain.bare });
const heavy = rounds.get('assertions-20k')!;
// The bare loop reads a plain "ok" in that round; the check fetches 20 kB and parses it: what the assertions add over a bare check, in one figure.
report({
  id: 'V1-assertions-20k-bare', what: 'agent CPU per HTTP check with 5 assertions on a 20 kB JSON body (P1 with assertions)', ours: heavy.agent, unit: 'µs CPU/check',
  reference: { name: 'bare Node loop, plain body, same window', value: heavy.bare }, goal: 'measured (no goal)', met: true,
});
for (const name of ['assertions', 'assertions-20k', 'gzip', 'proxy', 'http2'] as const) {
  const r = rounds.get(name)!;
  const reference = referenceOf(name);
  // Scaled to the reference's window: each round has its own bare-loop figure.
  const scaled = (r.agent / r.bare) * reference.round.bare;
  report({
    id: `V1-${name}`,
    what: VARIANTS.find((v) => v.name === name)!.what,
    ours: scaled,
    unit: 'µs CPU/check',
    reference: { name: reference.name, value: reference.round.agent },
    goal: 'measured (no goal)',
    met: true,
  });
}

/** What a variant adds to: HTTPS/1.1 for HTTP/2 (TLS costs the same on both), the unasserted JSON check for assertions, the plain check otherwise. */
function referenceOf(variant: string): { round: Round; name: string } {
  if (variant === 'http2') return { round: https, name: 'HTTPS/1.1 check' };
  if (variant === 'assertions') return { round: rounds.get('json')!, name: 'JSON-body check' };
  if (variant === 'assertions-20k') return { round: rounds.get('json-20k')!, name: '20 kB JSON-body check' };
  return { round: plain, name: 'plain HTTP check' };
}

async function measure(variant: Variant, ports: Ports): Promise<Round> {
  const cp = await startFakeControlPlane({ heartbeatIntervalSeconds: 5 });
  for (let i = 0; i < SERVICES; i++) {
    const a: Assignment = { serviceId: serviceId(i), version: 1, checkType: variant.checkType, endpoint: variant.endpoint(ports), intervalSeconds: INTERVAL_MS / 1000, timeoutSeconds: 5, options: variant.options(ports) };
    cp.assignments.set(a.serviceId, a);
  }
  const subjects: RunningProcess[] = [];
  try {
    const agent = startAgent(built.cli, cp.address);
    subjects.push(agent);
    while (cp.openStreams() === 0) await sleep(50);
    const bare = await startScript<{ windowStart: number; windowEnd: number }>('bare-loop.ts', ['http', String(ports.http), String(SERVICES), String(INTERVAL_MS), String(WARMUP_MS), String(MEASURE_MS)]);
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
    const failed = checks.filter((r) => !r.ok);
    if (failed.length > 0) throw new Error(`the agent failed ${failed.length} of its ${variant.name} checks: ${failed[0]!.message}`);
    return { agent: (agentCpu! * 1000) / checks.length, bare: (bareCpu! * 1000) / bareChecks };
  } finally {
    for (const subject of subjects.reverse()) await subject.stop();
    await cp.stop();
  }
}
