// Benchmark: the dashboard in headless Chromium with many services. Prints
//  - time to first render of the services overview (navigation start → first row on screen),
//    beside a static HTML table of as many rows served by a bare Node server (the reference);
//  - result-to-screen latency: a result written on the agent stream → its status on screen;
//  - the JavaScript of the first load, as transferred (gzip) and uncompressed.
// Runs a control plane in-process on TEST_DATABASE_URL (PostgreSQL) or the embedded database,
// a scripted agent, and Chromium, all on 127.0.0.1. The page's content policy forbids the
// string expressions the probes below evaluate, so the benchmark's browser contexts bypass it.
//
//   npx tsx bench/dashboard.ts [services=2000] [results=100] [runs=5]
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { buildDashboard, launchChromium } from '../test/support/browser.js';
import { startTestControlPlane } from '../test/support/control-plane-harness.js';
import { connectScriptedAgent } from '../test/support/grpc-test-agent.js';
import { poll } from '../test/support/poll.js';
import { stopTestDatabase } from '../test/support/test-database.js';

const serviceCount = Number(process.argv[2] ?? 2000);
const resultCount = Number(process.argv[3] ?? 100);
const runs = Number(process.argv[4] ?? 5);
const name = (i: number) => `bench-${String(i).padStart(5, '0')}`;

buildDashboard();
const cp = await startTestControlPlane({ env: { API_RATE_LIMIT: 'off' } });
const user = await cp.api.newUser('dashboard-bench');
await cp.api.put('/organization', { plan: 'unlimited' }, user.token);
const ids: string[] = new Array(serviceCount);
for (let next = 0; next < serviceCount; ) {
  const batch = Array.from({ length: Math.min(16, serviceCount - next) }, (_, k) => next + k);
  next += batch.length;
  await Promise.all(
    batch.map(async (i) => {
      const created = await cp.api.post('/services', { name: name(i), endpoint: `http://127.0.0.1:9/${i}`, check_type: 'HTTP', locations: ['bench'], tags: [`team-${i % 7}`] }, user.token);
      if (created.status !== 201) throw new Error(`create failed: ${created.status} ${created.text}`);
      ids[i] = created.body.id;
    }),
  );
}
const agent = await connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken, 'bench');
await poll(() => agent.received.some((m) => m.payload?.$case === 'snapshot'), { what: 'the snapshot' });
for (let i = 0; i < serviceCount; i += 500) {
  await agent.sendResults(ids.slice(i, i + 500).map((serviceId, k) => ({ serviceId, ok: (i + k) % 10 !== 0, responseTimeMs: 20 + ((i + k) % 50) })));
}

// The reference: the same number of rows as a static HTML table from a bare Node server.
const staticTable = `<!doctype html><title>reference</title><table><tbody>${Array.from({ length: serviceCount }, (_, i) => `<tr><td>${name(i)}</td><td>HTTP</td><td>http://127.0.0.1:9/${i}</td><td>GREEN</td><td>20 ms</td></tr>`).join('')}</tbody></table>`;
const reference = http.createServer((_req, res) => res.end(staticTable));
await new Promise<void>((r) => reference.listen(0, '127.0.0.1', r));

const browser = await launchChromium();
const session = JSON.stringify({ token: user.token, userId: user.userId, organizationId: user.orgId, email: user.email });

/** ms from navigation start until `ready` (a page expression) holds. */
async function timeToRender(page: Page, url: string, ready: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(ready, undefined, { polling: 'raf', timeout: 30_000 });
  return (await page.evaluate('performance.now()')) as number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const firstRowShown = `[...document.querySelectorAll('[role=row]')].some((r) => r.textContent.includes('${name(0)}'))`;

const referenceTimes: number[] = [];
const overviewTimes: number[] = [];
let firstLoad = { transferred: 0, decoded: 0, files: 0 };
for (let run = 0; run < runs; run++) {
  const refContext = await browser.newContext();
  const refPage = await refContext.newPage();
  referenceTimes.push(await timeToRender(refPage, `http://127.0.0.1:${(reference.address() as AddressInfo).port}/`, `document.querySelectorAll('tr').length === ${serviceCount}`));
  await refContext.close();

  // A fresh context each run: nothing cached, as on a first visit.
  const context = await browser.newContext({ baseURL: cp.baseUrl, viewport: { width: 1280, height: 900 }, bypassCSP: true });
  await context.addInitScript(`localStorage.setItem('outpost.session', ${JSON.stringify(session)})`);
  const page = await context.newPage();
  overviewTimes.push(await timeToRender(page, '/services?sort=name', firstRowShown));
  if (run === 0) {
    firstLoad = (await page.evaluate(`(() => {
      const js = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.js'));
      return { transferred: js.reduce((s, e) => s + e.encodedBodySize, 0), decoded: js.reduce((s, e) => s + e.decodedBodySize, 0), files: js.length };
    })()`)) as typeof firstLoad;
  }
  await context.close();
}

// Result → screen: flip the first service between RED and GREEN, one result at a time.
const context = await browser.newContext({ baseURL: cp.baseUrl, viewport: { width: 1280, height: 900 }, bypassCSP: true });
await context.addInitScript(`localStorage.setItem('outpost.session', ${JSON.stringify(session)})`);
const page = await context.newPage();
await timeToRender(page, '/services?sort=name', firstRowShown);
await page.getByText('Live', { exact: true }).waitFor();
const latencies: number[] = [];
for (let i = 0; i < resultCount; i++) {
  const failing = i % 2 === 0;
  const expected = failing ? 'RED' : 'GREEN';
  const sentAt = Date.now();
  await agent.sendResults([{ serviceId: ids[0]!, ok: failing ? false : true, responseTimeMs: 15, message: failing ? 'refused' : 'ok' }]);
  const shownAt = (await (
    await page.waitForFunction(
      `(() => { const row = [...document.querySelectorAll('[role=row]')].find((r) => r.textContent.includes('${name(0)}')); return row && row.textContent.includes('${expected}') && Date.now(); })()`,
      undefined,
      { polling: 'raf', timeout: 10_000 },
    )
  ).jsonValue()) as number;
  latencies.push(shownAt - sentAt);
}

console.log(`database: ${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; services: ${serviceCount}; runs: ${runs}`);
console.log(`first render of the overview: median ${median(overviewTimes).toFixed(0)} ms (runs: ${overviewTimes.map((t) => t.toFixed(0)).join(', ')})`);
console.log(`reference, static ${serviceCount}-row table: median ${median(referenceTimes).toFixed(0)} ms → ratio ${(median(overviewTimes) / median(referenceTimes)).toFixed(2)}x`);
console.log(`result → screen over ${resultCount} results: p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms, max ${Math.max(...latencies)} ms`);
console.log(`first load JavaScript: ${firstLoad.files} files, ${(firstLoad.transferred / 1024).toFixed(1)} KB transferred (gzip), ${(firstLoad.decoded / 1024).toFixed(1)} KB uncompressed (budget 250 KB gzip)`);

await browser.close();
agent.close();
reference.close();
await cp.stop();
await stopTestDatabase();
