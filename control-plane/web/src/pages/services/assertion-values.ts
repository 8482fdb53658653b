// Assertions, MULTISTEP steps and their extractions as the service form holds them (text as
// typed, an id per row), made from a stored service's options and turned back into them.
import { isMultiValued, isNumericComparison, isNumericSource, STEP_SOURCES, takesTarget, type Comparison } from './assertion-catalogue.js';
import { headersOf, headersText, numberOrText, records, textOf } from './text-values.js';

type Sources = Parameters<typeof isMultiValued>[0];

let lastRowId = 0;
/** Rows are keyed by identity, so removing or moving one leaves the others' inputs in place. */
const rowId = () => `row-${++lastRowId}`;

/** The rows with the one of id `id` changed: every row editor's update. */
export const updateRow = <T extends { id: string }>(rows: T[], id: string, change: Partial<T>): T[] => rows.map((r) => (r.id === id ? { ...r, ...change } : r));
export const removeRow = <T extends { id: string }>(rows: T[], id: string): T[] => rows.filter((r) => r.id !== id);

export interface AssertionDraft {
  id: string;
  source: string;
  property: string;
  comparison: Comparison;
  target: string;
  /** '': any value (the API's default). */
  match: '' | 'all';
}

export const EXTRACTION_SOURCES = ['json', 'header', 'body', 'status'] as const;
export type ExtractionSource = (typeof EXTRACTION_SOURCES)[number];

export interface ExtractionDraft {
  id: string;
  name: string;
  source: ExtractionSource;
  property: string;
}

export interface StepDraft {
  id: string;
  name: string;
  /** '': GET. */
  method: string;
  url: string;
  headers: string;
  body: string;
  assertions: AssertionDraft[];
  extract: ExtractionDraft[];
}

export const newAssertion = (source: string): AssertionDraft => ({ id: rowId(), source, property: '', comparison: 'less_than', target: '', match: '' });
export const newExtraction = (): ExtractionDraft => ({ id: rowId(), name: '', source: 'json', property: '' });
export const newStep = (): StepDraft => ({ id: rowId(), name: '', method: '', url: '', headers: '', body: '', assertions: [], extract: [] });

export function assertionDrafts(value: unknown): AssertionDraft[] {
  return records(value).map((a) => ({
    id: rowId(),
    source: textOf(a.source),
    property: textOf(a.property),
    comparison: textOf(a.comparison) as Comparison,
    target: textOf(a.target),
    // "any" is the API's default, which the form leaves unsaid.
    match: a.match === 'all' ? 'all' : '',
  }));
}

export function stepDrafts(value: unknown): StepDraft[] {
  return records(value).map((s) => ({
    id: rowId(),
    name: textOf(s.name),
    method: textOf(s.method),
    url: textOf(s.url),
    headers: headersText(s.headers),
    body: textOf(s.body),
    assertions: assertionDrafts(s.assertions),
    extract: records(s.extract).map((e) => ({ id: rowId(), name: textOf(e.name), source: textOf(e.source) as ExtractionSource, property: textOf(e.property) })),
  }));
}

/** Only what the row's source and comparison take is sent; the API names anything missing. */
export function assertionsBody(drafts: AssertionDraft[], sources: Sources): Record<string, unknown>[] {
  return drafts.map((d) => {
    const assertion: Record<string, unknown> = { source: d.source, comparison: d.comparison };
    if (sources[d.source]?.property && d.property.trim()) assertion.property = d.property.trim();
    if (takesTarget(d.comparison) && d.target !== '') {
      // Counts and times compare as numbers; other values as the text typed.
      assertion.target = isNumericComparison(d.comparison) || isNumericSource(d.source) ? numberOrText(d.target) : d.target;
    }
    if (d.match && isMultiValued(sources, d.source)) assertion.match = d.match;
    return assertion;
  });
}

export function stepsBody(drafts: StepDraft[]): Record<string, unknown>[] {
  return drafts.map((d, i) => {
    const step: Record<string, unknown> = { name: d.name.trim(), url: d.url.trim() };
    if (d.method) step.method = d.method;
    if (d.headers.trim()) step.headers = headersOf(d.headers, `options.steps.${i}.headers`);
    if (d.body) step.body = d.body;
    if (d.assertions.length > 0) step.assertions = assertionsBody(d.assertions, STEP_SOURCES);
    if (d.extract.length > 0) {
      step.extract = d.extract.map((e) => ({ name: e.name.trim(), source: e.source, ...(e.source !== 'status' && e.property.trim() ? { property: e.property.trim() } : {}) }));
    }
    return step;
  });
}

/** The API paths the assertion rows show at their inputs; `prefix` is e.g. "options.assertions". */
export const assertionPaths = (prefix: string, drafts: AssertionDraft[]) =>
  drafts.flatMap((_, i) => ['source', 'property', 'comparison', 'target', 'match'].map((f) => `${prefix}.${i}.${f}`));

export const stepPaths = (drafts: StepDraft[]) =>
  drafts.flatMap((s, i) => [
    ...['name', 'method', 'url', 'headers', 'body'].map((f) => `options.steps.${i}.${f}`),
    ...assertionPaths(`options.steps.${i}.assertions`, s.assertions),
    ...s.extract.flatMap((_, j) => ['name', 'source', 'property'].map((f) => `options.steps.${i}.extract.${j}.${f}`)),
  ]);
