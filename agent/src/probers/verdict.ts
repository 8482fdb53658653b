// What a check's own options add to a prober's result: its assertions, its fail_after_ms
// threshold, and the response kept for the person paged (save_failed_response). A check that
// sets none of them runs its probe as it is (P1 measures that path).
import type { Assertion, AssertionOutcome } from '../../../shared/src/assertion-catalogue.js';
import type { AssertionCheck } from './assertions.js';
import type { DetailValue, Observed, Probe, ProbeResult } from './prober.js';

// The evaluator (a JSONPath engine, RE2) is loaded with the first check that has assertions: an
// agent whose checks have none never holds it.
let evaluator: Promise<typeof import('./assertions.js')> | undefined;
const loadEvaluator = () => (evaluator ??= import('./assertions.js'));

/** details.response keeps at most this much of a failed answer's body, and this many headers. */
const SAVED_BODY_BYTES = 4096;
const SAVED_HEADERS = 50;

interface VerdictOptions {
  assertions?: Assertion[];
  fail_after_ms?: number;
  save_failed_response?: boolean;
}

/** The probe, judged by the options that ask for it; the probe itself when none do. */
export function withVerdict(probe: Probe, options: VerdictOptions): Probe {
  const assertions = options.assertions?.length ? options.assertions : undefined;
  const failAfterMs = options.fail_after_ms;
  const save = options.save_failed_response === true;
  if (!assertions && failAfterMs === undefined && !save) return probe;
  let check: AssertionCheck | undefined;
  const compiled = async () => (check ??= (await loadEvaluator()).compileAssertions(assertions!));
  return (signal) => probe(signal).then(async (result) => judge(result, assertions && (check ?? (await compiled())), failAfterMs, save));
}

/** Applies a check's assertions and thresholds to a result. */
function judge(result: ProbeResult, check: AssertionCheck | undefined, failAfterMs: number | undefined, save: boolean): ProbeResult {
  const { observed } = result;
  let { ok, message } = result;
  const details = { ...result.details };
  if (check) {
    // A probe that passed without saying what it saw (a ping, a plain connect) still has its response time to judge.
    const seen = observed ?? (result.ok ? {} : undefined);
    const verdict = check(seen && { observed: seen, responseTimeMs: result.responseTimeMs });
    details.assertions = outcomesAsDetails(verdict.outcomes);
    if (ok && verdict.failure !== undefined) {
      ok = false;
      message = verdict.failure;
    }
  }
  if (ok && failAfterMs !== undefined && result.responseTimeMs > failAfterMs) {
    ok = false;
    message = `${message}: slower than fail_after_ms (${result.responseTimeMs} ms > ${failAfterMs} ms)`;
  }
  if (!ok && save && observed) {
    const saved = savedResponse(observed);
    if (saved) details.response = saved;
  }
  return { ...result, ok, message, details };
}

/** The assertion's outcome in details: JSON-safe, the fields the assertion had. */
export function outcomesAsDetails(outcomes: AssertionOutcome[]): DetailValue {
  return outcomes.map((o) => {
    const d: Record<string, DetailValue> = { source: o.source };
    if (o.property !== undefined) d.property = o.property;
    d.comparison = o.comparison;
    if (o.target !== undefined) d.target = o.target;
    d.actual = o.actual;
    d.passed = o.passed;
    return d;
  });
}

/** What the server said, as far as a failure report needs it. */
function savedResponse(observed: Observed): DetailValue | undefined {
  if (observed.status === undefined && observed.body === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(observed.headers ?? {}).slice(0, SAVED_HEADERS)) headers[name] = value;
  const body = observed.body === undefined ? null : firstBytes(observed.body, SAVED_BODY_BYTES);
  return { status: observed.status ?? null, headers, body };
}

/** The longest prefix of `text` within `bytes` bytes of UTF-8, never splitting a character. */
function firstBytes(text: string, bytes: number): string {
  const encoded = Buffer.from(text.slice(0, bytes), 'utf8');
  if (encoded.length <= bytes) return text.slice(0, bytes);
  let end = bytes;
  // Back off continuation bytes (10xxxxxx) to the start of the character that was cut.
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString('utf8');
}
