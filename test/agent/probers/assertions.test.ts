import { expect } from 'chai';
import type { Assertion } from '../../../shared/src/assertions.js';
import { compileAssertions, describe as describeAssertion, type Subject } from '../../../agent/src/probers/assertions.js';
import type { Observed, Prober, ProbeResult } from '../../../agent/src/probers/prober.js';
import { createProberRegistry } from '../../../agent/src/probers/registry.js';

const subject = (observed: Observed, responseTimeMs = 50): Subject => ({ observed, responseTimeMs });
const jsonBody = (value: unknown): Observed => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });

function verdictOf(assertion: Assertion, observed: Observed, responseTimeMs = 50) {
  const verdict = compileAssertions([assertion])(subject(observed, responseTimeMs));
  return { passed: verdict.outcomes[0]!.passed, actual: verdict.outcomes[0]!.actual, failure: verdict.failure };
}

describe('assertions', () => {
  const health = jsonBody({ status: 'UP', version: '2.4.1', uptime: 3600, ready: true, checks: [{ name: 'db', status: 'UP' }, { name: 'cache', status: 'DOWN' }], tags: ['a', 'b'], note: '', extra: {} });

  describe('each comparison, passing and failing', () => {
    const cases: [Assertion, boolean, string | null][] = [
      [{ source: 'json', property: '$.status', comparison: 'equals', target: 'UP' }, true, 'UP'],
      [{ source: 'json', property: '$.status', comparison: 'equals', target: 'DOWN' }, false, 'UP'],
      [{ source: 'json', property: '$.status', comparison: 'not_equals', target: 'DOWN' }, true, 'UP'],
      [{ source: 'json', property: '$.status', comparison: 'not_equals', target: 'UP' }, false, 'UP'],
      [{ source: 'json', property: '$.version', comparison: 'contains', target: '2.4' }, true, '2.4.1'],
      [{ source: 'json', property: '$.version', comparison: 'contains', target: '3.' }, false, '2.4.1'],
      [{ source: 'json', property: '$.tags', comparison: 'contains', target: 'b' }, true, '["a","b"]'],
      [{ source: 'json', property: '$.version', comparison: 'not_contains', target: 'beta' }, true, '2.4.1'],
      [{ source: 'json', property: '$.version', comparison: 'not_contains', target: '2.' }, false, '2.4.1'],
      [{ source: 'json', property: '$.version', comparison: 'matches', target: '^2\\.\\d+\\.\\d+$' }, true, '2.4.1'],
      [{ source: 'json', property: '$.version', comparison: 'matches', target: '^3' }, false, '2.4.1'],
      [{ source: 'json', property: '$.uptime', comparison: 'greater_than', target: 60 }, true, '3600'],
      [{ source: 'json', property: '$.uptime', comparison: 'greater_than', target: '3600' }, false, '3600'],
      [{ source: 'json', property: '$.uptime', comparison: 'greater_or_equal', target: 3600 }, true, '3600'],
      [{ source: 'json', property: '$.uptime', comparison: 'less_than', target: 3600 }, false, '3600'],
      [{ source: 'json', property: '$.uptime', comparison: 'less_or_equal', target: 3600 }, true, '3600'],
      [{ source: 'json', property: '$.version', comparison: 'less_than', target: 5 }, false, '2.4.1'],
      [{ source: 'json', property: '$.ready', comparison: 'equals', target: true }, true, 'true'],
      [{ source: 'json', property: '$.ready', comparison: 'equals', target: false }, false, 'true'],
      [{ source: 'json', property: '$.status', comparison: 'exists' }, true, 'UP'],
      [{ source: 'json', property: '$.missing', comparison: 'exists' }, false, null],
      [{ source: 'json', property: '$.missing', comparison: 'not_exists' }, true, null],
      [{ source: 'json', property: '$.status', comparison: 'not_exists' }, false, 'UP'],
      [{ source: 'json', property: '$.note', comparison: 'empty' }, true, ''],
      [{ source: 'json', property: '$.extra', comparison: 'empty' }, true, '{}'],
      [{ source: 'json', property: '$.tags', comparison: 'empty' }, false, '["a","b"]'],
      [{ source: 'json', property: '$.tags', comparison: 'not_empty' }, true, '["a","b"]'],
      [{ source: 'json', property: '$.note', comparison: 'not_empty' }, false, ''],
      [{ source: 'json', property: '$.missing', comparison: 'equals', target: 'x' }, false, null],
      // Nothing is empty, and equals or contains nothing.
      [{ source: 'json', property: '$.missing', comparison: 'not_equals', target: 'x' }, true, null],
      [{ source: 'json', property: '$.missing', comparison: 'not_contains', target: 'x' }, true, null],
      [{ source: 'json', property: '$.missing', comparison: 'empty' }, true, null],
      [{ source: 'json', property: '$.missing', comparison: 'not_empty' }, false, null],
      [{ source: 'json', property: '$.missing', comparison: 'greater_than', target: 1 }, false, null],
    ];
    for (const [assertion, passed, actual] of cases) {
      it(`${describeAssertion(assertion)} is ${passed ? 'met' : 'unmet'}`, () => {
        const v = verdictOf(assertion, health);
        expect(v.passed).to.equal(passed);
        expect(v.actual).to.equal(actual);
        expect(v.failure === undefined).to.equal(passed);
      });
    }
  });

  it('names the first failing assertion with what it saw, and lists every assertion', () => {
    const check = compileAssertions([
      { source: 'status', comparison: 'equals', target: 200 },
      { source: 'json', property: '$.checks[1].status', comparison: 'equals', target: 'UP' },
      { source: 'response_time_ms', comparison: 'less_than', target: 10 },
    ]);
    const verdict = check(subject(health, 734));
    expect(verdict.failure).to.equal('json $.checks[1].status equals "UP": got "DOWN"');
    expect(verdict.outcomes.map((o) => o.passed)).to.deep.equal([true, false, false]);
    expect(verdict.outcomes[2]).to.deep.equal({ source: 'response_time_ms', comparison: 'less_than', target: 10, actual: '734', passed: false });
  });

  it('takes any value by default and every value with match all', () => {
    const any: Assertion = { source: 'json', property: '$.checks[*].status', comparison: 'equals', target: 'UP' };
    expect(verdictOf(any, health)).to.include({ passed: true, actual: 'UP' });
    const all: Assertion = { ...any, match: 'all' };
    const v = verdictOf(all, health);
    expect(v).to.include({ passed: false, actual: 'DOWN' });
    expect(v.failure).to.equal('json $.checks[*].status equals "UP" (all): got "DOWN"');
  });

  it('reads headers by name whatever their case, and says a missing value was missing', () => {
    expect(verdictOf({ source: 'header', property: 'Content-Type', comparison: 'contains', target: 'json' }, health)).to.include({ passed: true, actual: 'application/json' });
    const missing = verdictOf({ source: 'header', property: 'X-Version', comparison: 'equals', target: '1' }, health);
    expect(missing).to.include({ passed: false, actual: null });
    expect(missing.failure).to.equal('header X-Version equals "1": got nothing');
  });

  it('says when a body is not JSON', () => {
    const v = verdictOf({ source: 'json', property: '$.status', comparison: 'equals', target: 'UP' }, { status: 200, body: '<html>' });
    expect(v.failure).to.equal('json $.status equals "UP": got nothing (the body is not JSON)');
  });

  it('compares a numeric status with a number or numeric text, and answers and results as lists', () => {
    expect(verdictOf({ source: 'status', comparison: 'equals', target: '200' }, health).passed).to.equal(true);
    expect(verdictOf({ source: 'status', comparison: 'less_than', target: 300 }, health).passed).to.equal(true);
    const dns: Observed = { answers: ['10.0.0.1', '10.0.0.2'], rcode: 'NOERROR' };
    expect(verdictOf({ source: 'answers', comparison: 'equals', target: '10.0.0.2' }, dns)).to.include({ passed: true, actual: '10.0.0.2' });
    expect(verdictOf({ source: 'answers', comparison: 'matches', target: '^10\\.', match: 'all' }, dns).passed).to.equal(true);
    expect(verdictOf({ source: 'result', property: '$.ok', comparison: 'equals', target: 1 }, { result: { ok: 1 } }).passed).to.equal(true);
    expect(verdictOf({ source: 'result', comparison: 'greater_than', target: 41 }, { result: 42 })).to.include({ passed: true, actual: '42' });
    expect(verdictOf({ source: 'result', comparison: 'empty' }, { result: null })).to.include({ passed: true, actual: 'null' });
  });

  it('cuts an actual value to 256 characters', () => {
    const v = verdictOf({ source: 'body', comparison: 'contains', target: 'needle' }, { body: 'x'.repeat(10_000) });
    expect(v.actual).to.have.length(256);
    expect(v.failure!.length).to.be.lessThan(400);
  });

  it('matches a pattern that backtracks catastrophically in a naive engine in linear time', () => {
    // (a+)+$ against "aaaa…b" takes exponential time in a backtracking engine; RE2 answers at once.
    const v = verdictOf({ source: 'body', comparison: 'matches', target: '(a+)+$' }, { body: `${'a'.repeat(50_000)}b` });
    expect(v.passed).to.equal(false);
  });

  it('marks every assertion unmet when nothing answered', () => {
    const verdict = compileAssertions([{ source: 'status', comparison: 'equals', target: 200 }])(undefined);
    expect(verdict.outcomes).to.deep.equal([{ source: 'status', comparison: 'equals', target: 200, actual: null, passed: false }]);
  });
});

describe('a check judged by its options', () => {
  // A prober that answers what the test says, so that the judging alone is under test.
  let answer: ProbeResult;
  const prober: Prober = { family: 'HTTP', prepare: () => () => Promise.resolve(answer) };
  const registry = createProberRegistry([prober]);
  const run = (options: Record<string, unknown>) => registry.run({ checkType: 'HTTP', endpoint: 'http://127.0.0.1/', timeoutMs: 2000, options });
  const answered = (over: Partial<ProbeResult> = {}): ProbeResult => ({
    ok: true,
    responseTimeMs: 120,
    message: 'HTTP 200 in 120 ms',
    details: { status_code: 200 },
    observed: { status: 200, headers: { 'content-type': 'application/json', 'x-trace': 'abc' }, body: JSON.stringify({ status: 'DOWN' }) },
    ...over,
  });

  it('turns a passing check RED when an assertion fails, keeping details and listing the assertions', async () => {
    answer = answered();
    const r = await run({ assertions: [{ source: 'json', property: '$.status', comparison: 'equals', target: 'UP' }] });
    expect(r.ok).to.equal(false);
    expect(r.message).to.equal('json $.status equals "UP": got "DOWN"');
    expect(r.details.status_code).to.equal(200);
    expect(r.details.assertions).to.deep.equal([{ source: 'json', property: '$.status', comparison: 'equals', target: 'UP', actual: 'DOWN', passed: false }]);
  });

  it('keeps a passing check GREEN when every assertion holds', async () => {
    answer = answered({ observed: { status: 200, body: '{"status":"UP"}' } });
    const r = await run({ assertions: [{ source: 'json', property: '$.status', comparison: 'equals', target: 'UP' }] });
    expect(r.ok).to.equal(true);
    expect(r.message).to.equal('HTTP 200 in 120 ms');
  });

  it('fails a check slower than fail_after_ms, saying so', async () => {
    answer = answered({ responseTimeMs: 734 });
    const r = await run({ fail_after_ms: 500 });
    expect(r.ok).to.equal(false);
    expect(r.message).to.equal('HTTP 200 in 120 ms: slower than fail_after_ms (734 ms > 500 ms)');
    answer = answered({ responseTimeMs: 499 });
    expect((await run({ fail_after_ms: 500 })).ok).to.equal(true);
  });

  it('keeps the response of a failed check with save_failed_response, cut to 4 KiB and 50 headers', async () => {
    const headers = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`x-h${i}`, String(i)]));
    answer = answered({ ok: false, message: 'HTTP 500 in 120 ms: unexpected status', observed: { status: 500, headers, body: `y${'é'.repeat(3000)}` } });
    const r = await run({ save_failed_response: true });
    const response = r.details.response as { status: number; headers: Record<string, string>; body: string };
    expect(response.status).to.equal(500);
    expect(Object.keys(response.headers)).to.have.length(50);
    // 4,096 bytes would split an é in two: the cut comes before it.
    expect(Buffer.byteLength(response.body)).to.equal(4095);
    expect(response.body).to.equal(`y${'é'.repeat(2047)}`);
    answer = answered({ ok: true });
    expect((await run({ save_failed_response: true })).details.response).to.equal(undefined);
  });

  it('judges the response time of a passing probe that reports nothing else it saw', async () => {
    answer = answered({ responseTimeMs: 30, observed: undefined });
    const slow = await run({ assertions: [{ source: 'response_time_ms', comparison: 'greater_than', target: 100 }] });
    expect(slow.ok).to.equal(false);
    expect(slow.message).to.equal('response_time_ms greater_than 100: got 30');
    expect((await run({ assertions: [{ source: 'response_time_ms', comparison: 'less_than', target: 100 }] })).ok).to.equal(true);
  });

  it('runs a check without these options exactly as its prober answered', async () => {
    answer = answered();
    const r = await run({});
    expect(r).to.equal(answer);
  });
});
