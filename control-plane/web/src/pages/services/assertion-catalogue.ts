// The form's words for the assertion sources and comparisons the API accepts, which come from
// shared/src/assertion-catalogue.ts (no JSONPath parser or regex engine there: those stay out
// of the dashboard's bundle).
import { ASSERTION_SOURCES, COMPARISONS, NUMERIC_COMPARISONS, STEP_SOURCES, WITHOUT_TARGET, type Comparison, type SourceInfo } from '../../../../../shared/src/assertion-catalogue.js';

export { ASSERTION_SOURCES, COMPARISONS, STEP_SOURCES, type Comparison };

type Sources = Readonly<Record<string, SourceInfo>>;

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
export const takesTarget = (comparison: string) => !WITHOUT_TARGET.has(comparison as Comparison);
export const isNumericComparison = (comparison: string) => NUMERIC_COMPARISONS.has(comparison as Comparison);
export const isNumericSource = (source: string) => NUMERIC_SOURCES.has(source);

/** What the property input is called for a source, or undefined when it takes none. */
export function propertyLabel(sources: Sources, source: string): string | undefined {
  const kind = sources[source]?.property;
  return kind === 'header' ? 'Header name' : kind === 'jsonpath' ? 'JSONPath' : undefined;
}

/** Sources that may yield several values, where "any" or "all" of them must pass. */
export const isMultiValued = (sources: Sources, source: string) => sources[source]?.property !== undefined || source === 'answers';
