// Uptime Kuma's JSON queries are JSONata expressions compared with an operator (2.x; 1.x only
// has equality) to an expected value, both as text. Outpost's json assertions take an RFC 9535
// JSONPath: the plain paths JSONata shares with it (a.b, a[0].b, `odd key`, $.a) translate;
// anything else (functions, predicates, arithmetic) is reported.
import type { Assertion, Comparison } from '../../../shared/src/assertions.js';
import { jsonPathProblem } from '../../../shared/src/assertions.js';

/** Kuma's operators (src/util.ts evaluateJsonQuery): <, > compare as numbers, the others as text. */
const OPERATORS: Record<string, Comparison> = {
  '==': 'equals',
  '!=': 'not_equals',
  contains: 'contains',
  '<': 'less_than',
  '<=': 'less_or_equal',
  '>': 'greater_than',
  '>=': 'greater_or_equal',
};

const NUMERIC = new Set<Comparison>(['less_than', 'less_or_equal', 'greater_than', 'greater_or_equal']);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STEP = /\s*(?:\.\s*(?:([A-Za-z_][A-Za-z0-9_]*)|`([^`]+)`)|\[\s*(-?\d+)\s*\])/y;

/** "data.items[0].id" -> "$.data.items[0].id"; undefined when the expression is more than a path. */
export function jsonataToJsonPath(expression: string): string | undefined {
  let rest = expression.trim();
  if (rest === '$' || rest === '') return '$';
  if (rest.startsWith('$.') || rest.startsWith('$[')) rest = rest.slice(1);
  else rest = `.${rest}`;
  let path = '$';
  STEP.lastIndex = 0;
  while (STEP.lastIndex < rest.length) {
    const from = STEP.lastIndex;
    const step = STEP.exec(rest);
    if (!step || step.index !== from) return undefined;
    const [, name, quoted, index] = step;
    if (name !== undefined) path += `.${name}`;
    else if (quoted !== undefined) path += NAME.test(quoted) ? `.${quoted}` : `['${quoted.replace(/[\\']/g, (c) => `\\${c}`)}']`;
    else path += `[${index}]`;
  }
  return jsonPathProblem(path) === undefined ? path : undefined;
}

export type JsonQueryOutcome = { ok: true; assertion: Assertion } | { ok: false; why: string };

/** A json assertion from Kuma's path, operator and expected value; `source` is json (HTTP, MQTT) or the OID's. */
export function jsonQueryAssertion(expression: string, operator: string | undefined, expected: string, source: { source: string; property?: string } = { source: 'json' }): JsonQueryOutcome {
  const comparison = OPERATORS[operator ?? '=='];
  if (!comparison) return { ok: false, why: `operator ${operator} has no Outpost comparison` };
  const path = jsonataToJsonPath(expression);
  if (path === undefined) return { ok: false, why: `the JSONata expression "${expression}" is more than a path; Outpost's json assertions take a JSONPath (RFC 9535): write one by hand` };
  const numeric = NUMERIC.has(comparison);
  const target = numeric ? Number(expected) : expected;
  if (numeric && !Number.isFinite(target)) return { ok: false, why: `${operator} needs a number, and the expected value is "${expected}"` };
  if (source.source === 'json') return { ok: true, assertion: { source: 'json', property: path, comparison, target } };
  // A non-JSON source (an SNMP value) takes only the whole value.
  if (path !== '$') return { ok: false, why: `the expression "${expression}" selects inside the value; Outpost compares the whole value` };
  return { ok: true, assertion: { ...source, comparison, target } };
}
