// Property-based fuzzing of every write route, of the query strings and path segments of
// the list routes, and of requests malformed at the HTTP layer. Bodies are generated from the
// routes' own zod schemas, with hostile input mixed in (fuzz-request.ts, hostile.ts). The
// property is API.md's error contract: no answer is a 5xx, every error is JSON
// {"error": "<sentence>"}.
//
//   FUZZ_SEED=<integer> replays a run; otherwise the seed is random, and printed on failure
//   with the shrunk counterexample.
import { expect } from 'chai';
import fc from 'fast-check';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { createFixtures, type Fixtures } from './fixtures.js';
import { listCases, writeCases } from './fuzz-cases.js';
import type { FuzzRequest } from './fuzz-request.js';
import { LIST_ROUTES } from './list-routes.js';
import { MALFORMED_RUNS, malformedCases } from './malformed-requests.js';
import { FuzzSender } from './send-request.js';
import { WRITE_ROUTES } from './write-routes.js';

function fuzzSeed(): number | undefined {
  const text = process.env.FUZZ_SEED;
  if (text === undefined || text === '') return undefined;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${JSON.stringify(text)}`);
  return seed;
}

describe('the REST API under fuzzing', () => {
  const seed = fuzzSeed();
  let cp: TestControlPlane;
  let fixtures: Fixtures;
  let sender: FuzzSender;

  before(async function () {
    this.timeout(60_000);
    cp = await startTestControlPlane({ env: { API_RATE_LIMIT: 'off' } });
    fixtures = await createFixtures(cp.api);
    sender = new FuzzSender(cp.baseUrl, fixtures.owner.token);
  });
  after(async () => {
    sender?.close();
    await cp?.stop();
  });

  async function assertContract(cases: fc.Arbitrary<FuzzRequest>, numRuns: number): Promise<void> {
    const property = fc.asyncProperty(cases, async (request) => {
      const { problem } = await sender.check(request);
      expect(problem, problem && `${problem.kind}: ${problem.message}`).to.equal(undefined);
    });
    await fc.assert(property, { numRuns, seed });
  }

  describe('write routes', () => {
    for (const route of WRITE_ROUTES) {
      it(`answers ${route.method} ${route.path} without a 5xx, every error as JSON`, async function () {
        // Generous for shrinking a failure; a passing run takes a fraction of it.
        this.timeout(60_000);
        await assertContract(writeCases(route, fixtures), route.runs);
      });
    }
  });

  describe('query strings and path segments', () => {
    for (const route of LIST_ROUTES) {
      it(`answers GET ${route.path} without a 5xx, every error as JSON`, async function () {
        this.timeout(60_000);
        await assertContract(listCases(route, fixtures), route.runs);
      });
    }
  });

  describe('requests malformed at the HTTP layer', () => {
    it('answers raw bytes in the target, an overlong target, broken framing and unknown methods with JSON errors', async function () {
      this.timeout(60_000);
      await assertContract(malformedCases(fixtures), MALFORMED_RUNS);
    });
  });
});
