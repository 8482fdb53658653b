// Benchmark: the REST API fuzz cases of test/fuzz at scale. Draws cases from every write
// and list route (in the proportions the test runs them), sends them over a few keep-alive
// connections, and counts answers by status and route, with the first breaches of the
// error contract (a 5xx, an error that is not JSON, no answer) shown in full.
//
//   npx tsx bench/fuzz-api.ts [cases=100000] [connections=4]
// Uses TEST_DATABASE_URL (PostgreSQL) or the embedded database; FUZZ_SEED fixes the cases.
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { startTestControlPlane } from '../test/support/control-plane-harness.js';
import { stopTestDatabase } from '../test/support/test-database.js';
import { createFixtures } from '../test/fuzz/fixtures.js';
import { listCases, writeCases } from '../test/fuzz/fuzz-cases.js';
import { describeRequest, type FuzzRequest } from '../test/fuzz/fuzz-request.js';
import { LIST_ROUTES } from '../test/fuzz/list-routes.js';
import { MALFORMED_RUNS, malformedCases } from '../test/fuzz/malformed-requests.js';
import type { Problem } from '../test/fuzz/send-request.js';
import { FuzzSender } from '../test/fuzz/send-request.js';
import { WRITE_ROUTES } from '../test/fuzz/write-routes.js';

const total = Number(process.argv[2] ?? 100_000);
const connections = Number(process.argv[3] ?? 4);
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Cases are drawn a batch at a time: a batch of 1 MB bodies is all that is held at once. */
const BATCH = 500;
const EXAMPLES_SHOWN = 5;

const byStatus = new Map<number, number>();
const byRoute = new Map<string, number>();
const problems = new Map<Problem['kind'], { byRoute: Map<string, number>; examples: string[] }>();
const count = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

const cp = await startTestControlPlane({ env: { API_RATE_LIMIT: 'off' } });
try {
  const fixtures = await createFixtures(cp.api);
  const sender = new FuzzSender(cp.baseUrl, fixtures.owner.token, connections);
  const cases = fc.oneof(
    ...WRITE_ROUTES.map((r) => ({ weight: r.runs, arbitrary: writeCases(r, fixtures) })),
    ...LIST_ROUTES.map((r) => ({ weight: r.runs, arbitrary: listCases(r, fixtures) })),
    { weight: MALFORMED_RUNS, arbitrary: malformedCases(fixtures) },
  );

  const send = async (request: FuzzRequest) => {
    const { response, problem } = await sender.check(request);
    count(byRoute, request.route);
    if (response) count(byStatus, response.status);
    if (!problem) return;
    const seen = problems.get(problem.kind) ?? { byRoute: new Map<string, number>(), examples: [] };
    count(seen.byRoute, request.route);
    if (seen.examples.length < EXAMPLES_SHOWN) seen.examples.push(`${describeRequest(request)}\n  -> ${problem.message}`);
    problems.set(problem.kind, seen);
  };

  const started = performance.now();
  for (let sent = 0, batch = 0; sent < total; sent += BATCH, batch++) {
    const queue = fc.sample(cases, { numRuns: Math.min(BATCH, total - sent), seed: (seed + batch) | 0 });
    await Promise.all(Array.from({ length: connections }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await send(next);
    }));
  }
  const seconds = (performance.now() - started) / 1000;
  sender.close();

  const sentTotal = [...byRoute.values()].reduce((a, b) => a + b, 0);
  const rows = (map: Map<string | number, number>) => [...map].sort(([a], [b]) => String(a).localeCompare(String(b))).map(([k, n]) => `  ${String(k).padEnd(44)} ${n.toLocaleString('en')}`);
  console.log(`${sentTotal.toLocaleString('en')} cases in ${seconds.toFixed(1)} s over ${connections} connections: ${Math.round(sentTotal / seconds).toLocaleString('en')} cases/s (FUZZ_SEED=${seed})`);
  console.log(`by status:\n${rows(byStatus).join('\n')}`);
  console.log(`by route:\n${rows(byRoute).join('\n')}`);
  for (const kind of ['5xx', 'non-JSON error', 'no answer'] as const) {
    const seen = problems.get(kind);
    const routes = [...(seen?.byRoute ?? [])];
    console.log(`${kind}: ${routes.reduce((sum, [, n]) => sum + n, 0)}${routes.length > 0 ? ` (${routes.map(([r, n]) => `${r}: ${n}`).join(', ')})` : ''}`);
    for (const example of seen?.examples ?? []) console.log(`  ${example}`);
  }
} finally {
  await cp.stop();
  await stopTestDatabase();
}
