// The assertion sources and comparisons the API accepts (shared/src/assertions.ts), mirrored
// here because that module brings a JSONPath parser and a regex engine the dashboard does not
// need; test/web/assertions.test.ts keeps the two equal. Labels are the form's own.
import type { CheckFamily } from '../../../../../shared/src/check-types.js';
import type { Comparison } from '../../../../../shared/src/assertions.js';

export type { Comparison };

/** What a source's `property` is, when it takes one. */
type PropertyKind = 'header' | 'jsonpath';
type Sources = Record<string, { property?: PropertyKind }>;

const RESPONSE_TIME = { response_time_ms: {} };
const HTTP: Sources = { ...RESPONSE_TIME, status: {}, header: { property: 'header' }, body: {}, json: { property: 'jsonpath' }, tls_days_remaining: {} };

export const ASSERTION_SOURCES: Record<CheckFamily, Sources> = {
  HTTP,
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
};

/** A MULTISTEP step's sources: an HTTP check's. */
export const STEP_SOURCES = HTTP;

const COMPARISON_LABELS: Record<Comparison, string> = {
  equals: 'equals',
  not_equals: 'does not equal',
  contains: 'contains',
  not_contains: 'does not contain',
  matches: 'matches (regular expression)',
  less_than: 'less than',
  less_or_equal: 'at most',
  greater_than: 'greater than',
  greater_or_equal: 'at least',
  exists: 'exists',
  not_exists: 'does not exist',
  empty: 'is empty',
  not_empty: 'is not empty',
};

export const COMPARISONS = Object.keys(COMPARISON_LABELS) as Comparison[];

const WITHOUT_TARGET: ReadonlySet<string> = new Set(['exists', 'not_exists', 'empty', 'not_empty']);
const NUMERIC: ReadonlySet<string> = new Set(['less_than', 'less_or_equal', 'greater_than', 'greater_or_equal']);
/** Sources whose value is always a number: their targets are sent as numbers. */
const NUMERIC_SOURCES: ReadonlySet<string> = new Set(['response_time_ms', 'status', 'tls_days_remaining']);

const SOURCE_LABELS: Record<string, string> = {
  response_time_ms: 'Response time (ms)',
  status: 'Status',
  header: 'Header',
  body: 'Body',
  json: 'JSON body',
  tls_days_remaining: 'TLS certificate days left',
  answers: 'DNS answers',
  rcode: 'DNS response code',
  banner: 'Banner',
  result: 'Query result',
};

export const sourceLabel = (source: string) => SOURCE_LABELS[source] ?? source;
export const comparisonLabel = (comparison: string) => COMPARISON_LABELS[comparison as Comparison] ?? comparison;
export const takesTarget = (comparison: string) => !WITHOUT_TARGET.has(comparison);
export const isNumericComparison = (comparison: string) => NUMERIC.has(comparison);
export const isNumericSource = (source: string) => NUMERIC_SOURCES.has(source);

/** What the property input is called for a source, or undefined when it takes none. */
export function propertyLabel(sources: Sources, source: string): string | undefined {
  const kind = sources[source]?.property;
  return kind === 'header' ? 'Header name' : kind === 'jsonpath' ? 'JSONPath' : undefined;
}

/** Sources that may yield several values, where "any" or "all" of them must pass. */
export const isMultiValued = (sources: Sources, source: string) => sources[source]?.property !== undefined || source === 'answers';
