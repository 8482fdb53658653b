// `options.assertions`: what a check expects of what answered (API.md "Assertions"). Validated
// here, on the control plane and in the agent's `check` command alike; evaluated by the agent
// (agent/src/probers/assertions.ts), so that bodies and query results stay in the network.
import parseJsonPath from 'jsonpath-rfc9535/parser';
import { RE2JS } from 're2js';
import * as z from 'zod/mini';
import type { CheckFamily } from './check-types.js';
import './zod-english.js';

export const MAX_ASSERTIONS = 50;
export const MAX_PATTERN_LENGTH = 512;
/** An `actual` value is cut to this many characters. */
export const MAX_ACTUAL_LENGTH = 256;

export const COMPARISONS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'matches',
  'less_than',
  'less_or_equal',
  'greater_than',
  'greater_or_equal',
  'exists',
  'not_exists',
  'empty',
  'not_empty',
] as const;
export type Comparison = (typeof COMPARISONS)[number];

/** The comparisons that stand alone; every other one needs a target. */
const WITHOUT_TARGET: ReadonlySet<Comparison> = new Set(['exists', 'not_exists', 'empty', 'not_empty']);
export const NUMERIC_COMPARISONS: ReadonlySet<Comparison> = new Set(['less_than', 'less_or_equal', 'greater_than', 'greater_or_equal']);

/** What a source's `property` is, when it takes one. */
type PropertyKind = 'header' | 'jsonpath';

interface SourceInfo {
  property?: PropertyKind;
}

const RESPONSE_TIME = { response_time_ms: {} } as const;
const HTTP_SOURCES = {
  ...RESPONSE_TIME,
  status: {},
  header: { property: 'header' },
  body: {},
  json: { property: 'jsonpath' },
  tls_days_remaining: {},
} as const satisfies Record<string, SourceInfo>;

/** The sources each family offers. MULTISTEP's steps take the HTTP sources. */
export const ASSERTION_SOURCES = {
  HTTP: HTTP_SOURCES,
  TCP: { ...RESPONSE_TIME, body: {} },
  ICMP: RESPONSE_TIME,
  DNS: { ...RESPONSE_TIME, answers: {}, rcode: {} },
  WEBSOCKET: { ...RESPONSE_TIME, status: {}, header: { property: 'header' } },
  SMTP: { ...RESPONSE_TIME, banner: {} },
  IMAP: { ...RESPONSE_TIME, banner: {} },
  FTP: { ...RESPONSE_TIME, banner: {} },
  SSH: { ...RESPONSE_TIME, banner: {} },
  REDIS: RESPONSE_TIME,
  MYSQL: { ...RESPONSE_TIME, result: {} },
  POSTGRES: { ...RESPONSE_TIME, result: {} },
  MONGODB: { ...RESPONSE_TIME, result: { property: 'jsonpath' } },
  GRPC: { ...RESPONSE_TIME, status: {} },
  TLS_CERTIFICATE: { ...RESPONSE_TIME, tls_days_remaining: {} },
  MULTISTEP: RESPONSE_TIME,
} as const satisfies Record<CheckFamily, Record<string, SourceInfo>>;

export const STEP_SOURCES = HTTP_SOURCES;

export type AssertionTarget = string | number | boolean;

export interface Assertion {
  source: string;
  property?: string;
  comparison: Comparison;
  target?: AssertionTarget;
  match?: 'any' | 'all';
}

/** One assertion as a result reports it (`details.assertions`). */
export interface AssertionOutcome {
  source: string;
  property?: string;
  comparison: Comparison;
  target?: AssertionTarget;
  /** The value the verdict rests on, as text cut to MAX_ACTUAL_LENGTH; null when there was none. */
  actual: string | null;
  passed: boolean;
}

/** A JSONPath that parses but is not run here. */
export class UnsafeJsonPath extends Error {}

/** Why a JSONPath cannot be used, as a 400 says it; undefined when it can. */
export function jsonPathProblem(path: string): string | undefined {
  try {
    parseJsonPathOrThrow(path);
    return undefined;
  } catch (err) {
    return err instanceof UnsafeJsonPath ? err.message : `not a JSONPath (RFC 9535): ${firstLine(err)}`;
  }
}

/**
 * Throws with a reason when the JSONPath (RFC 9535) does not parse, or uses match() or search():
 * the library runs their patterns with JavaScript's backtracking engine, and one pattern that
 * backtracks catastrophically would stall every check of the agent (`matches` runs in RE2).
 */
export function parseJsonPathOrThrow(path: string): void {
  const found = backtrackingFunction(parseJsonPath(path));
  if (found) throw new UnsafeJsonPath(`${found}() is not run here, since its pattern could backtrack without end; select the value and use a matches assertion`);
}

function backtrackingFunction(node: unknown): string | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = backtrackingFunction(item);
      if (found) return found;
    }
    return undefined;
  }
  if (node === null || typeof node !== 'object') return undefined;
  const { type, name } = node as { type?: unknown; name?: unknown };
  if (type === 'FunctionExpr' && (name === 'match' || name === 'search')) return name;
  for (const value of Object.values(node)) {
    const found = backtrackingFunction(value);
    if (found) return found;
  }
  return undefined;
}

/** A regular expression for RE2 (linear time), compiled; throws with a reason when it does not parse. */
export function compilePattern(pattern: string): RE2JS {
  return RE2JS.compile(pattern);
}

/** A number from a number or a numeric string (trimmed); undefined otherwise. */
export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

const assertionShape = z.strictObject({
  source: z.string().check(z.minLength(1), z.maxLength(64)),
  property: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
  comparison: z.enum(COMPARISONS),
  target: z.optional(z.union([z.string().check(z.maxLength(4096)), z.number(), z.boolean()])),
  match: z.optional(z.enum(['any', 'all'])),
});

/** The assertions of a check whose sources are `sources` (a family's, or a step's). */
export function assertionList(sources: Record<string, SourceInfo>) {
  return z.array(assertionShape).check(
    z.maxLength(MAX_ASSERTIONS),
    z.superRefine((list, ctx) => {
      list.forEach((a, index) => {
        const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: [index, field], message, input: a });
        const info = Object.hasOwn(sources, a.source) ? (sources[a.source] as SourceInfo) : undefined;
        if (!info) return issue('source', `unknown source "${a.source}" here; sources are ${Object.keys(sources).join(', ')}`);
        if (info.property && a.property === undefined) issue('property', `source ${a.source} needs a property (${info.property === 'header' ? 'a header name' : 'a JSONPath'})`);
        if (!info.property && a.property !== undefined) issue('property', `source ${a.source} takes no property`);
        if (info.property === 'jsonpath' && a.property !== undefined) {
          const problem = jsonPathProblem(a.property);
          if (problem) issue('property', problem);
        }
        if (WITHOUT_TARGET.has(a.comparison)) {
          if (a.target !== undefined) issue('target', `${a.comparison} takes no target`);
          return;
        }
        if (a.target === undefined) return issue('target', `${a.comparison} needs a target`);
        if (NUMERIC_COMPARISONS.has(a.comparison) && asNumber(a.target) === undefined) issue('target', `${a.comparison} needs a number`);
        if (a.comparison === 'matches') {
          if (typeof a.target !== 'string') return issue('target', 'matches needs a regular expression as a string');
          if (a.target.length > MAX_PATTERN_LENGTH) return issue('target', `a regular expression is at most ${MAX_PATTERN_LENGTH} characters`);
          try {
            compilePattern(a.target);
          } catch (err) {
            issue('target', `not a regular expression: ${firstLine(err)}`);
          }
        }
      });
    }),
  );
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200);
}
