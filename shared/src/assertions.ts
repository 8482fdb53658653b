// `options.assertions`: what a check expects of what answered (API.md "Assertions"). Validated
// here, on the control plane and in the agent's `check` command alike; evaluated by the agent
// (agent/src/probers/assertions.ts), so that bodies and query results stay in the network.
import parseJsonPath from 'jsonpath-rfc9535/parser';
import { RE2JS } from 're2js';
import * as z from 'zod/mini';
import { asNumber, COMPARISONS, MAX_ASSERTIONS, MAX_PATTERN_LENGTH, isOid, NUMERIC_COMPARISONS, PROPERTY_KIND_NAMES, WITHOUT_TARGET, type SourceInfo } from './assertion-catalogue.js';
import './zod-english.js';

export * from './assertion-catalogue.js';

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

const LDAP_ATTRIBUTE = /^(?:[A-Za-z][A-Za-z0-9-]{0,127}|\d+(?:\.\d+)+)(?:;[A-Za-z0-9-]{1,64})*$/;

/** A regular expression for RE2 (linear time), compiled; throws with a reason when it does not parse. */
export function compilePattern(pattern: string): RE2JS {
  return RE2JS.compile(pattern);
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
        if (info.property && a.property === undefined) issue('property', `source ${a.source} needs a property (${PROPERTY_KIND_NAMES[info.property]})`);
        if (!info.property && a.property !== undefined) issue('property', `source ${a.source} takes no property`);
        if (info.property === 'jsonpath' && a.property !== undefined) {
          const problem = jsonPathProblem(a.property);
          if (problem) issue('property', problem);
        }
        if (info.property === 'oid' && a.property !== undefined && !isOid(a.property)) issue('property', `not an OID: ${PROPERTY_KIND_NAMES.oid}`);
        if (info.property === 'attribute' && a.property !== undefined && !LDAP_ATTRIBUTE.test(a.property)) issue('property', 'not an LDAP attribute name (letters, digits and -, or an OID)');
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
