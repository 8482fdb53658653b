// Benchmark W1 (issue 44): the whole product's CPU per check. The product runs as `npm start`
// runs it (the build, the start script's options, a fresh DATA_DIR: its embedded database and
// its embedded agent), with 20, then 1,000 HTTP services every 20 s created through the API,
// all checking one local HTTP target served by a process of its own (bench/reference/targets.ts).
// Beside it, in the same window, a bare Node loop in a process of its own making the same
// requests (as many services, the same interval; bench/reference/bare-loop.ts: node:http on a
// fresh connection per check, as the agent's prober does with its own client on node:net).
// CPU: every thread of each process (and any child) from /proc, over a window after a settle
// period; checks: the product's counted from the results it stored (its history API), the bare
// loop's as it counted them. The agent's share: the product runs agent and control plane on one
// thread, so after the window a profile taken through the inspector (opened by SIGUSR1, closed
// until then, so it cost nothing in the window) splits the main thread's time by what the stack
// runs; that share of the main thread's CPU per check is the agent's.
//
//   npx tsx bench/whole-product.ts [--full]     (quick: 60 s windows; full: 5 minutes)
import { startScript, sleep, rssMb, type RunningProcess } from './support/agent-under-test.js';
import { call, inParallel, registerOwner } from './support/product-api.js';
import { buildProduct, cpuBetween, cpuSnapshot, startProduct, type ProcessCpu, type Product } from './support/product-process.js';
import { classifyProduct, formatParts, PART, profileParts, profileThroughInspector } from './support/profile-parts.js';
import { fullSize, report, round } from './support/report.js';

const SIZES = [20, 1_000];
const INTERVAL_S = 20;
/** After the services exist: their first checks (made at once on creation) are done, and V8 has compiled the hot paths (P1 saw 20 s). */
const SETTLE_MS = fullSize ? 60_000 : 40_000;
/** Quick: three checks of every service; full: fifteen. */
const WINDOW_MS = fullSize ? 300_000 : 60_000;
const PROFILE_MS = fullSize ? 60_000 : 20_000;
const GOAL = 1.5;
/** The CPU is read this long before the window's end (0.04% of a quick window). */
const READ_EARLY_MS = 25;

interface Measured {
  services: number;
  productChecks: number;
  product: ProcessCpu;
  bareChecks: number;
  bareMs: number;
  rssMb: number;
  /**
   * The fraction of the main thread's JavaScript and WebAssembly samples of the agent, the
   * embedded database and the rest. Native samples ((program): the event loop, system calls, the
   * sampler itself) and the collector's name no code, so they are taken to split the same way.
   */
  shares: { agent: number; database: number; rest: number };
  profile: string;
}

buildProduct();
const targets = await startScript<{ http: number }>('targets.ts', []);
try {
  for (const services of SIZES) {
    const m = await measure(services);
    const perCheck = m.product.totalMs / m.productChecks;
    const bare = m.bareMs / m.bareChecks;
    const mainPerCheck = m.product.mainThreadMs / m.productChecks;
    const agent = mainPerCheck * m.shares.agent;
    const share = (name: keyof Measured['shares']) => `${(100 * m.shares[name]).toFixed(0)}%, ${(mainPerCheck * m.shares[name]).toFixed(2)} ms`;
    const ratio = (x: number) => `${(x / bare).toFixed(2)}x`;
    console.log(
      `\n${services} HTTP services every ${INTERVAL_S} s, ${WINDOW_MS / 1000} s window: the product ${round(m.product.totalMs)} ms CPU over ${m.productChecks} stored checks (due: ${(services * WINDOW_MS) / (INTERVAL_S * 1000)}), ` +
        `${(m.product.totalMs / (WINDOW_MS / 1000)).toFixed(1)} ms CPU per second, RSS ${Math.round(m.rssMb)} MB at the end; the bare loop ${round(m.bareMs)} ms over ${m.bareChecks} checks\n` +
        `  per check: product ${perCheck.toFixed(2)} ms (${ratio(perCheck)} the bare loop's ${bare.toFixed(2)} ms); of it the main thread ${mainPerCheck.toFixed(2)} ms, other threads (GC, compiler, I/O) ${(perCheck - mainPerCheck).toFixed(2)} ms\n` +
        `  the main thread per check, split as its JavaScript and WebAssembly samples: the agent ${share('agent')} (${ratio(agent)} the bare loop's), the embedded database ${share('database')}, the control plane and the rest ${share('rest')}\n` +
        `  so the product without its agent: ${(perCheck - agent).toFixed(2)} ms per check (${ratio(perCheck - agent)} the bare loop's)\n` +
        `where the main thread's time goes (${PROFILE_MS / 1000} s profile after the window):\n${m.profile}`,
    );
    const figure = { ours: perCheck, unit: 'ms CPU/check', reference: { name: 'bare Node loop, same requests', value: bare } };
    if (services === 1_000) report({ id: 'W1-1000', what: `npm start: CPU per check, ${services} HTTP services at ${INTERVAL_S} s`, ...figure, goal: `≤ ${GOAL}x`, met: perCheck <= GOAL * bare });
    else report({ id: `W1-${services}`, what: `npm start: CPU per check, ${services} HTTP services at ${INTERVAL_S} s`, ...figure, goal: 'measured (goal: ≤ 0.5x Uptime Kuma, by hand)', met: true });
  }
} finally {
  await targets.stop();
}

/** One size: a fresh product and its services, the bare loop beside it over one window, then the profile. */
async function measure(services: number): Promise<Measured> {
  const product = await startProduct({});
  let bare: (RunningProcess & { first: { windowStart: number; windowEnd: number }; lines: AsyncIterator<string> }) | undefined;
  try {
    const owned = await createServices(product, services);
    const reader = await call<{ key: string }>(product.baseUrl, 'POST', '/api-keys', owned.token, { name: 'bench reader', role: 'viewer' });
    bare = await startScript<{ windowStart: number; windowEnd: number }>('bare-loop.ts', ['http', String(targets.first.http), String(services), String(INTERVAL_S * 1000), String(SETTLE_MS), String(WINDOW_MS)]);
    const { windowStart, windowEnd } = bare.first;
    await sleep(windowStart - Date.now());
    const before = { product: cpuSnapshot(product.pid), bare: cpuSnapshot(bare.child.pid!) };
    // A moment before the window's end: the bare loop exits 50 ms after it, and a process on its way out has lost its threads.
    await sleep(windowEnd - READ_EARLY_MS - Date.now());
    const after = { product: cpuSnapshot(product.pid), bare: cpuSnapshot(bare.child.pid!) };
    if (after.bare.threads.size < before.bare.threads.size) throw new Error('the bare loop was exiting when its CPU was read');
    const rss = rssMb(product.pid);
    const { checks: bareChecks } = JSON.parse((await bare.lines.next()).value as string) as { checks: number };
    // The window's last checks reach the database a moment after they start.
    await sleep(3_000);
    const productChecks = await storedChecks(product, owned.ids, reader.key, windowStart, windowEnd);
    const summary = profileParts(await profileThroughInspector(await product.openInspector(), PROFILE_MS), classifyProduct);
    const partMs = (name: string) => summary.parts.find((p) => p.name === name)?.ms ?? 0;
    const attributed = partMs(PART.agent) + partMs(PART.database) + partMs(PART.rest);
    return {
      services,
      productChecks,
      product: cpuBetween(before.product, after.product),
      bareChecks,
      bareMs: cpuBetween(before.bare, after.bare).totalMs,
      rssMb: rss,
      shares: { agent: partMs(PART.agent) / attributed, database: partMs(PART.database) / attributed, rest: partMs(PART.rest) / attributed },
      profile: formatParts(summary),
    };
  } finally {
    await bare?.stop();
    await product.stop();
  }
}

/** A user on the unlimited plan and `count` HTTP services on the target, through the API. */
async function createServices(product: Product, count: number): Promise<{ token: string; ids: string[] }> {
  const owner = await registerOwner(product.baseUrl, 'whole-product-bench');
  await call(product.baseUrl, 'PUT', '/organization', owner.token, { plan: 'unlimited' });
  const ids: string[] = [];
  await inParallel(count, 8, async (i) => {
    const body = { name: `target ${i}`, endpoint: `http://127.0.0.1:${targets.first.http}/`, check_type: 'HTTP', check_interval_seconds: INTERVAL_S };
    ids[i] = (await call<{ id: string }>(product.baseUrl, 'POST', '/services', owner.token, body)).id;
  });
  return { token: owner.token, ids };
}

/** The results stored with checked_at inside the window, over every service; any that is not GREEN fails the run. */
async function storedChecks(product: Product, ids: string[], key: string, from: number, to: number): Promise<number> {
  let count = 0;
  await inParallel(ids.length, 8, async (i) => {
    const page = await call<{ status: string; checked_at: string; message: string | null }[]>(product.baseUrl, 'GET', `/services/${ids[i]}/checks?limit=100`, key);
    for (const check of page) {
      const at = Date.parse(check.checked_at);
      if (at < from || at >= to) continue;
      if (check.status !== 'GREEN') throw new Error(`a check of service ${ids[i]} was ${check.status}: ${check.message}`);
      count += 1;
    }
  });
  return count;
}
