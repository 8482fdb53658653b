// MULTISTEP: HTTP requests run in order on one agent within the check's timeout, each judged
// by its own assertions (or, without a status assertion, by a 2xx/3xx status), each able to
// pass values to later steps through `extract` and `{{name}}`. The first failing step ends the
// run RED, naming the step. `{{secrets.NAME}}` was replaced by the control plane before the
// assignment reached this agent. A step is one exchange: redirects are not followed, so that a
// step can assert on a 302 and extract its Location.
import { query as jsonPathQuery, type JsonValue } from 'jsonpath-rfc9535';
import { RE2JS } from 're2js';
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import type { CheckOptions } from '../../../shared/src/check-options.js';
import { PLACEHOLDER } from '../../../shared/src/placeholders.js';
import { compileAssertions, type AssertionCheck } from './assertions.js';
import { createHttpClient, type HttpClient } from './http-client.js';
import type { HttpExchange } from './http-request.js';
import { observedIn, statusExpected } from './http.js';
import { describeNetworkError } from './network-errors.js';
import { createTokenCache, type TokenCache } from './oauth2-token-cache.js';
import { outcomesAsDetails } from './verdict.js';
import type { ProbeSignal } from './probe-signal.js';
import type { DetailValue, Observed, Prober, ProbeResult, ProbeTarget } from './prober.js';

const MAX_BODY_BYTES = 1024 * 1024;

type StepOptions = CheckOptions<'MULTISTEP'>['steps'][number];
type Extraction = NonNullable<StepOptions['extract']>[number];

interface PreparedStep {
  name: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  check?: AssertionCheck;
  /** A status assertion replaces the default 2xx/3xx rule. */
  judgesStatus: boolean;
  extract: { spec: Extraction; pattern?: RE2JS }[];
}

/** `tokens` keeps oauth2 tokens for all the targets this prober checks. */
export function multistepProber(tokens: TokenCache = createTokenCache()): Prober<'MULTISTEP'> {
  return {
    family: 'MULTISTEP',
    prepare(target) {
      let base: URL;
      try {
        base = new URL(target.endpoint);
      } catch {
        return () => Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      }
      const client = createHttpClient(target.options, { maxBodyBytes: MAX_BODY_BYTES, tokens });
      const steps = target.options.steps.map(prepareStep);
      return (signal) => run(target, base, client, steps, signal);
    },
  };
}

function prepareStep(s: StepOptions): PreparedStep {
  return {
    name: s.name,
    method: s.method ?? 'GET',
    url: s.url,
    headers: s.headers ?? {},
    body: s.body,
    check: s.assertions?.length ? compileAssertions(s.assertions) : undefined,
    judgesStatus: assertsOn(s.assertions, 'status'),
    extract: (s.extract ?? []).map((spec) => ({ spec, pattern: spec.source === 'body' ? RE2JS.compile(spec.property!) : undefined })),
  };
}

async function run(target: ProbeTarget<'MULTISTEP'>, base: URL, client: HttpClient, steps: PreparedStep[], signal: ProbeSignal): Promise<ProbeResult> {
  const started = performance.now();
  const variables = new Map<string, string>();
  const reports: DetailValue[] = [];
  let observed: Observed | undefined;
  const finish = (ok: boolean, message: string): ProbeResult => {
    const responseTimeMs = Math.round(performance.now() - started);
    return { ok, responseTimeMs, message: ok ? `${steps.length} step${steps.length === 1 ? '' : 's'} passed in ${responseTimeMs} ms` : message, details: { steps: reports }, observed };
  };

  for (const [index, step] of steps.entries()) {
    const label = `step ${index + 1} "${step.name}"`;
    const stepStarted = performance.now();
    const report: Record<string, DetailValue> = { name: step.name, method: step.method };
    reports.push(report);
    const fail = (message: string) => {
      report.ok = false;
      report.message = message;
      report.response_time_ms = Math.round(performance.now() - stepStarted);
      return finish(false, `${label}: ${message}`);
    };

    let exchange: HttpExchange;
    try {
      const url = new URL(fill(step.url, variables), base);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(`unsupported protocol "${url.protocol}"`);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(step.headers)) headers[name] = fill(value, variables);
      exchange = await client.exchange({ url, method: step.method, headers, body: step.body === undefined ? undefined : fill(step.body, variables) }, signal);
    } catch (err) {
      return fail(signal.aborted ? `timed out after ${target.timeoutMs} ms` : describeNetworkError(err));
    }

    const responseTimeMs = Math.round(performance.now() - stepStarted);
    observed = observedIn(exchange);
    report.status_code = exchange.status;
    report.response_time_ms = responseTimeMs;
    Object.assign(report, exchange.timings);
    const summary = `HTTP ${exchange.status} in ${responseTimeMs} ms`;

    if (!step.judgesStatus && !statusExpected(exchange.status, undefined)) return fail(`${summary}: unexpected status`);
    if (step.check) {
      const verdict = step.check({ observed, responseTimeMs });
      report.assertions = outcomesAsDetails(verdict.outcomes);
      if (verdict.failure !== undefined) return fail(verdict.failure);
    }
    for (const { spec, pattern } of step.extract) {
      const value = extracted(spec, pattern, exchange);
      if (value === undefined) return fail(`extract ${spec.name}: ${spec.source}${spec.property ? ` ${spec.property}` : ''} found nothing`);
      variables.set(spec.name, value);
    }
    if (step.extract.length > 0) report.extracted = step.extract.map((e) => e.spec.name);
    report.ok = true;
    report.message = summary;
  }
  return finish(true, '');
}

/** The value an extraction takes from a step's answer, as text; undefined when there is none. */
function extracted(spec: Extraction, pattern: RE2JS | undefined, exchange: HttpExchange): string | undefined {
  switch (spec.source) {
    case 'status':
      return String(exchange.status);
    case 'header':
      return exchange.headers[spec.property!.toLowerCase()];
    case 'body': {
      const match = pattern!.matcher(exchange.body);
      if (!match.find()) return undefined;
      // The first group when the pattern has one, else the whole match.
      return (pattern!.groupCount() > 0 ? match.group(1) : match.group(0)) ?? undefined;
    }
    case 'json': {
      let document: JsonValue;
      try {
        document = JSON.parse(exchange.body) as JsonValue;
      } catch {
        return undefined;
      }
      const [first] = jsonPathQuery(document, spec.property!);
      if (first === undefined) return undefined;
      return typeof first === 'string' ? first : JSON.stringify(first);
    }
  }
}

/** `{{name}}` replaced by what an earlier step extracted; anything else left as written. */
function fill(text: string, variables: ReadonlyMap<string, string>): string {
  if (!text.includes('{{')) return text;
  return text.replace(PLACEHOLDER, (whole, name: string) => variables.get(name) ?? whole);
}
