// Evaluates `options.assertions` against what a probe saw (ProbeResult.observed), on the
// agent: bodies and query results stay in the network; only each assertion's verdict and a
// cut `actual` value travel. Compiled once per assignment (patterns, JSONPaths).
import { query as jsonPathQuery, type JsonValue } from 'jsonpath-rfc9535';
import { RE2JS } from 're2js';
import { asNumber, canonicalOid, MAX_ACTUAL_LENGTH, type Assertion, type AssertionOutcome } from '../../../shared/src/assertion-catalogue.js';
import type { Observed } from './prober.js';

/** What the assertions are evaluated on: one answer and the time it took. */
export interface Subject {
  observed: Observed;
  responseTimeMs: number;
}

export interface Verdict {
  outcomes: AssertionOutcome[];
  /** The first failing assertion with what it saw, e.g. `json $.status equals "UP": got "DOWN"`; undefined when all passed. */
  failure?: string;
}

export type AssertionCheck = (subject: Subject | undefined) => Verdict;

/** Values a source yields for one answer; `why` says why there are none, when that is worth saying. */
interface Found {
  values: unknown[];
  why?: string;
}

/** Lazily parsed JSON of a body: parsed once for all the assertions of one answer. */
class Answer {
  private json: { ok: true; value: JsonValue } | { ok: false } | undefined;
  constructor(readonly subject: Subject) {}

  bodyJson(): { ok: true; value: JsonValue } | { ok: false } {
    if (this.json) return this.json;
    // An MQTT check's `json` reads the message it received.
    const body = this.subject.observed.body ?? this.subject.observed.message;
    try {
      this.json = body === undefined ? { ok: false } : { ok: true, value: JSON.parse(body) as JsonValue };
    } catch {
      this.json = { ok: false };
    }
    return this.json;
  }
}

export function compileAssertions(assertions: readonly Assertion[]): AssertionCheck {
  const compiled = assertions.map(compileOne);
  return (subject) => {
    if (!subject) {
      // The probe failed before anything answered: nothing to judge, each assertion unmet.
      return { outcomes: compiled.map((c) => outcome(c.assertion, null, false)) };
    }
    const answer = new Answer(subject);
    const outcomes: AssertionOutcome[] = [];
    let failure: string | undefined;
    for (const c of compiled) {
      const { passed, actual, why } = c.evaluate(answer);
      const text = actual === undefined ? null : cut(asText(actual));
      outcomes.push(outcome(c.assertion, text, passed));
      if (!passed && failure === undefined) failure = `${describe(c.assertion)}: got ${actual === undefined ? `nothing${why ? ` (${why})` : ''}` : shown(actual)}`;
    }
    return { outcomes, failure };
  };
}

const VACUOUS: ReadonlySet<string> = new Set(['empty', 'not_equals', 'not_contains']);

interface Compiled {
  assertion: Assertion;
  /** `actual`: the value the verdict rests on; undefined when the source yielded none. */
  evaluate(answer: Answer): { passed: boolean; actual?: unknown; why?: string };
}

function compileOne(a: Assertion): Compiled {
  const find = sourceOf(a);
  const test = comparisonOf(a);
  const all = a.match === 'all';
  return {
    assertion: a,
    evaluate(answer) {
      const { values, why } = find(answer);
      if (a.comparison === 'exists') return { passed: values.length > 0, actual: values[0], why };
      if (a.comparison === 'not_exists') return { passed: values.length === 0, actual: values[0], why };
      // Nothing is empty, and contains or equals nothing; every other comparison needs a value.
      if (values.length === 0) return { passed: VACUOUS.has(a.comparison), why };
      // any: the first value that passes, else the first; all: the first that fails, else the first.
      const deciding = values.find((v) => test(v) !== all);
      return { passed: all ? deciding === undefined : deciding !== undefined, actual: deciding ?? values[0] };
    },
  };
}

function sourceOf(a: Assertion): (answer: Answer) => Found {
  const present = (value: unknown): Found => ({ values: value === undefined ? [] : [value] });
  switch (a.source) {
    case 'response_time_ms':
      return (x) => present(x.subject.responseTimeMs);
    case 'status':
      return (x) => present(x.subject.observed.status);
    case 'header': {
      const name = a.property!.toLowerCase();
      return (x) => present(x.subject.observed.headers?.[name]);
    }
    case 'body':
      return (x) => present(x.subject.observed.body);
    case 'json':
      return (x) => {
        const parsed = x.bodyJson();
        if (!parsed.ok) {
          const { body, message } = x.subject.observed;
          return { values: [], why: body === undefined && message === undefined ? 'no body' : `the ${body === undefined ? 'message' : 'body'} is not JSON` };
        }
        return { values: jsonPathQuery(parsed.value, a.property!) };
      };
    case 'tls_days_remaining':
      return (x) => present(x.subject.observed.tls_days_remaining);
    case 'answers':
      return (x) => ({ values: x.subject.observed.answers ?? [] });
    case 'rcode':
      return (x) => present(x.subject.observed.rcode);
    case 'banner':
      return (x) => present(x.subject.observed.banner);
    case 'result':
      if (a.property !== undefined) {
        const path = a.property;
        return (x) => {
          const result = x.subject.observed.result;
          return result === undefined ? { values: [] } : { values: jsonPathQuery(result as JsonValue, path) };
        };
      }
      return (x) => present(x.subject.observed.result);
    case 'oid': {
      const oid = canonicalOid(a.property!);
      return (x) => present(x.subject.observed.oids?.[oid]);
    }
    case 'attribute': {
      const name = a.property!.toLowerCase();
      return (x) => ({ values: x.subject.observed.attributes?.[name] ?? [] });
    }
    case 'offset_ms':
    case 'stratum':
    case 'body_hex':
    case 'entries':
    case 'code':
    case 'message':
    case 'message_count':
    case 'consumer_count':
    case 'state':
    case 'health':
    case 'restart_count':
    case 'hops':
    case 'loss_percent':
    case 'jitter_ms':
    case 'reached':
    case 'days_remaining': {
      const key = a.source;
      return (x) => present(x.subject.observed[key]);
    }
    default:
      // Validation refuses a source its family does not offer; an older agent may still meet one.
      return () => ({ values: [], why: `source ${a.source} is not known to this agent version` });
  }
}

function comparisonOf(a: Assertion): (value: unknown) => boolean {
  const target = a.target;
  switch (a.comparison) {
    case 'equals':
      return (v) => equals(v, target!);
    case 'not_equals':
      return (v) => !equals(v, target!);
    case 'contains':
      return (v) => contains(v, String(target));
    case 'not_contains':
      return (v) => !contains(v, String(target));
    case 'matches': {
      const pattern = RE2JS.compile(String(target));
      return (v) => pattern.matcher(asText(v)).find();
    }
    case 'less_than':
      return numeric(target!, (x, t) => x < t);
    case 'less_or_equal':
      return numeric(target!, (x, t) => x <= t);
    case 'greater_than':
      return numeric(target!, (x, t) => x > t);
    case 'greater_or_equal':
      return numeric(target!, (x, t) => x >= t);
    case 'empty':
      return isEmpty;
    case 'not_empty':
      return (v) => !isEmpty(v);
    case 'exists':
    case 'not_exists':
      // Decided on the list of values itself (compileOne).
      return () => true;
  }
}

/** A number target compares as a number ("200" equals 200); a boolean as true/false; text as text. */
function equals(value: unknown, target: string | number | boolean): boolean {
  if (typeof target === 'number') return asNumber(value) === target;
  if (typeof target === 'boolean') return value === target || asText(value) === String(target);
  return asText(value) === target;
}

/** A list contains an element equal to the target; anything else contains it as text. */
function contains(value: unknown, target: string): boolean {
  if (Array.isArray(value)) return value.some((e) => asText(e) === target);
  return asText(value).includes(target);
}

function numeric(target: string | number | boolean, compare: (value: number, target: number) => boolean): (value: unknown) => boolean {
  const t = asNumber(target)!;
  return (v) => {
    const n = asNumber(v);
    return n !== undefined && compare(n, t);
  };
}

function isEmpty(value: unknown): boolean {
  if (value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function cut(text: string): string {
  return text.length > MAX_ACTUAL_LENGTH ? text.slice(0, MAX_ACTUAL_LENGTH) : text;
}

/** A value in a message: text quoted, numbers and booleans bare, cut like `actual`. */
function shown(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(cut(asText(value)));
}

/** `json $.status equals "UP"`, `response_time_ms less_than 500`, `header content-type exists`. */
export function describe(a: Assertion): string {
  let text = a.source;
  if (a.property !== undefined) text += ` ${a.property}`;
  text += ` ${a.comparison}`;
  if (a.target !== undefined) text += ` ${JSON.stringify(a.target)}`;
  if (a.match === 'all') text += ' (all)';
  return text;
}

function outcome(a: Assertion, actual: string | null, passed: boolean): AssertionOutcome {
  const o: AssertionOutcome = { source: a.source, comparison: a.comparison, actual, passed };
  if (a.property !== undefined) o.property = a.property;
  if (a.target !== undefined) o.target = a.target;
  return o;
}
