// Gatus conditions ("[STATUS] == 200", "[BODY].status == UP", "len([BODY].items) < 5") as
// Outpost assertions. A condition either becomes assertions, needs nothing (it is what a
// passing check already means), asks for a domain-expiry service, or is not representable.
import { ASSERTION_SOURCES, jsonPathProblem, type Assertion, type Comparison } from '../../../shared/src/assertions.js';
import { checkFamily, type CheckType } from '../../../shared/src/check-types.js';
import { parseGoDuration } from './go-duration.js';

export type ConditionOutcome =
  | { kind: 'assertions'; assertions: Assertion[]; note?: string }
  | { kind: 'implied' }
  | { kind: 'domain-expiration'; comparison: Comparison; days: number }
  | { kind: 'unmapped'; why: string };

/** Gatus's operators, in the order it looks for them (it needs the spaces around them). */
const OPERATORS = [
  [' == ', 'equals'],
  [' != ', 'not_equals'],
  [' <= ', 'less_or_equal'],
  [' >= ', 'greater_or_equal'],
  [' > ', 'greater_than'],
  [' < ', 'less_than'],
] as const;

const DAY_MS = 86_400_000;

interface Parsed {
  left: string;
  comparison: Comparison;
  right: string;
}

function split(condition: string): Parsed | undefined {
  for (const [operator, comparison] of OPERATORS) {
    const at = condition.indexOf(operator);
    if (at >= 0) return { left: condition.slice(0, at).trim(), comparison, right: condition.slice(at + operator.length).trim() };
  }
  return undefined;
}

const unmapped = (why: string): ConditionOutcome => ({ kind: 'unmapped', why });
const one = (assertion: Assertion, note?: string): ConditionOutcome => ({ kind: 'assertions', assertions: [assertion], ...(note ? { note } : {}) });

export function mapCondition(condition: string, type: CheckType): ConditionOutcome {
  const parsed = split(condition);
  if (!parsed) return unmapped('not a condition Gatus reads (an operator ==, !=, <, <=, >, >= between spaces)');
  const { left, comparison, right } = parsed;
  if (/^\[[A-Z_]+\]/.test(right) || /^(len|has)\(/.test(right)) return unmapped('compares two values of the response; an assertion compares one with a constant');
  if (left === '[CONNECTED]') return right === 'true' && comparison === 'equals' ? { kind: 'implied' } : unmapped('Outpost has no check that passes when the target cannot be reached');
  if (left === '[IP]') return unmapped('Outpost has no source for the resolved IP address');
  if (left === '[DOMAIN_EXPIRATION]') return domainExpiration(comparison, right);
  if (left === '[CERTIFICATE_EXPIRATION]') return certificateExpiration(type, comparison, right);
  if (left === '[RESPONSE_TIME]') return numeric('response_time_ms', comparison, right, type);
  if (left === '[STATUS]') return statusCondition(type, comparison, right);
  if (left === '[DNS_RCODE]') return onSource(type, { source: 'rcode' }, comparison, right);
  const has = /^has\((\[BODY\].*)\)$/.exec(left);
  if (has) return hasCondition(type, has[1]!, comparison, right);
  if (/^len\(/.test(left)) return unmapped('Outpost has no length of a JSON value (JSONPath length() works inside filters only)');
  if (left.startsWith('[BODY]')) return bodyCondition(type, left.slice('[BODY]'.length), comparison, right);
  return unmapped(`${left} is not a placeholder Outpost has a source for`);
}

function statusCondition(type: CheckType, comparison: Comparison, right: string): ConditionOutcome {
  if (type === 'SSH') return unmapped("Outpost's SSH check runs no command, so there is no exit status");
  return onSource(type, { source: 'status' }, comparison, right);
}

function bodyCondition(type: CheckType, path: string, comparison: Comparison, right: string): ConditionOutcome {
  const family = checkFamily(type);
  if (family === 'SSH') return unmapped("Outpost's SSH check runs no command, so there is no output to read");
  // A gRPC health answer is a status name, which Gatus reads as [BODY].status.
  if (family === 'GRPC') return path === '.status' ? onSource(type, { source: 'status' }, comparison, right) : unmapped('a gRPC check offers only the health status ([BODY].status)');
  if (family === 'DNS') return path === '' ? onSource(type, { source: 'answers' }, comparison, right) : unmapped('a DNS answer is not JSON');
  if (path === '') return onSource(type, { source: 'body' }, comparison, right);
  const jsonPath = `$${path}`;
  const problem = jsonPathProblem(jsonPath);
  if (problem) return unmapped(`${jsonPath}: ${problem}`);
  return onSource(type, { source: 'json', property: jsonPath }, comparison, right);
}

function hasCondition(type: CheckType, body: string, comparison: Comparison, right: string): ConditionOutcome {
  const path = body.slice('[BODY]'.length);
  if (path === '') return unmapped('has([BODY]) says nothing a passing check does not');
  const wanted = right === 'true' ? comparison === 'equals' : right === 'false' ? comparison === 'not_equals' : undefined;
  if (wanted === undefined) return unmapped('has() compares with true or false');
  const jsonPath = `$${path}`;
  const problem = jsonPathProblem(jsonPath);
  if (problem) return unmapped(`${jsonPath}: ${problem}`);
  return checkedSource(type, { source: 'json', property: jsonPath, comparison: wanted ? 'exists' : 'not_exists' });
}

/** The assertion when the family offers its source; why not otherwise. */
function checkedSource(type: CheckType, assertion: Assertion, note?: string): ConditionOutcome {
  const sources: Record<string, unknown> = ASSERTION_SOURCES[checkFamily(type)];
  if (!(assertion.source in sources)) return unmapped(`the ${type} check has no ${assertion.source} source`);
  return one(assertion, note);
}

/** `right` is a constant, pat(glob) or any(a, b, ...). */
function onSource(type: CheckType, source: Pick<Assertion, 'source' | 'property'>, comparison: Comparison, right: string): ConditionOutcome {
  const pat = /^pat\((.*)\)$/s.exec(right);
  const any = /^any\((.*)\)$/s.exec(right);
  if (pat || any) {
    if (comparison !== 'equals') return unmapped(`${pat ? 'pat' : 'any'}() with != has no equivalent (Outpost has no "does not match")`);
    const pattern = pat ? globToRe2(pat[1]!) : `^(?:${splitArguments(any![1]!).map(escapeRe2).join('|')})$`;
    return checkedSource(type, { ...source, comparison: 'matches', target: pattern });
  }
  return checkedSource(type, { ...source, comparison, target: constant(right) });
}

function numeric(source: string, comparison: Comparison, right: string, type: CheckType): ConditionOutcome {
  const n = Number(right);
  if (right === '' || !Number.isFinite(n)) return unmapped(`${right} is not a number`);
  return checkedSource(type, { source, comparison, target: n });
}

function certificateExpiration(type: CheckType, comparison: Comparison, right: string): ConditionOutcome {
  if (checkFamily(type) !== 'HTTP') return unmapped(`the ${type} check does not read certificates; an SSL certificate watch (dashboard, or POST /api/v1/ssl-certificates) does`);
  const days = durationInDays(right);
  if (days === undefined) return unmapped(`${right} is not a duration`);
  const whole = Number.isInteger(days);
  // tls_days_remaining counts whole days, rounded down.
  return checkedSource(type, { source: 'tls_days_remaining', comparison, target: days }, whole ? undefined : `${right} is ${days} days; tls_days_remaining counts whole days, so the limit moves by up to a day`);
}

function domainExpiration(comparison: Comparison, right: string): ConditionOutcome {
  const days = durationInDays(right);
  if (days === undefined) return unmapped(`${right} is not a duration`);
  return { kind: 'domain-expiration', comparison, days };
}

function durationInDays(text: string): number | undefined {
  const ms = parseGoDuration(text);
  return ms === undefined ? undefined : Math.round((ms / DAY_MS) * 1000) / 1000;
}

/** As Gatus compares: a number or boolean when the text is one, the text otherwise. */
function constant(text: string): string | number | boolean {
  if (text === 'true' || text === 'false') return text === 'true';
  if (text !== '' && Number.isFinite(Number(text))) return Number(text);
  return text;
}

function splitArguments(text: string): string[] {
  return text.split(',').map((a) => a.trim());
}

const RE2_SPECIAL = /[\\^$.|?*+()[\]{}]/g;
const escapeRe2 = (text: string) => text.replace(RE2_SPECIAL, '\\$&');

/**
 * Gatus's pat() is Go's filepath.Match over the whole value: * any run, ? one character,
 * [...] a class ([^...] or [!...] negated), \ escapes the next character.
 */
export function globToRe2(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '\\' && i + 1 < glob.length) out += escapeRe2(glob[++i]!);
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, '^');
        out += `[${body}]`;
        i = end;
      }
    } else out += escapeRe2(c);
  }
  return `^(?s:${out})$`;
}
