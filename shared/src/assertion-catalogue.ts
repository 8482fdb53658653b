// What `options.assertions` may say (API.md "Assertions"): the sources each family offers, the
// comparisons and the shapes. No library here: the dashboard imports it too; validation
// (assertions.ts) and evaluation (agent/src/probers/assertions.ts) build on it.
import type { CheckFamily } from './check-types.js';

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
export const WITHOUT_TARGET: ReadonlySet<Comparison> = new Set(['exists', 'not_exists', 'empty', 'not_empty']);
export const NUMERIC_COMPARISONS: ReadonlySet<Comparison> = new Set(['less_than', 'less_or_equal', 'greater_than', 'greater_or_equal']);

/** What a source's `property` is, when it takes one. */
export type PropertyKind = 'header' | 'jsonpath' | 'oid' | 'attribute';

/** How a 400 names what a property kind wants. */
export const PROPERTY_KIND_NAMES: Record<PropertyKind, string> = {
  header: 'a header name',
  jsonpath: 'a JSONPath',
  oid: 'an OID such as 1.3.6.1.2.1.1.3.0, one of options.oids',
  attribute: 'an attribute name',
};

export interface SourceInfo {
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
  // oid: the value of one of options.oids (number or text, as the agent answered).
  SNMP: { ...RESPONSE_TIME, oid: { property: 'oid' } },
  NTP: { ...RESPONSE_TIME, offset_ms: {}, stratum: {} },
  UDP: { ...RESPONSE_TIME, body: {}, body_hex: {} },
  // entries: how many the search found; attribute: the values of one attribute of the first entry.
  LDAP: { ...RESPONSE_TIME, entries: {}, attribute: { property: 'attribute' } },
  // code: the reply's name (Access-Accept, Access-Reject, Access-Challenge).
  RADIUS: { ...RESPONSE_TIME, code: {} },
  SIP: { ...RESPONSE_TIME, status: {} },
  MQTT: { ...RESPONSE_TIME, message: {}, json: { property: 'jsonpath' } },
  AMQP: { ...RESPONSE_TIME, message_count: {}, consumer_count: {} },
  NATS: { ...RESPONSE_TIME, message: {} },
  DOCKER: { ...RESPONSE_TIME, state: {}, health: {}, restart_count: {} },
  TRACEROUTE: { ...RESPONSE_TIME, hops: {}, loss_percent: {}, jitter_ms: {}, reached: {} },
  DOMAIN: { ...RESPONSE_TIME, days_remaining: {} },
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

/** A number from a number or a numeric string (trimmed); undefined otherwise. */
export function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Whether some assertion reads `source`: a prober then leaves to it what it would judge itself (a status, a DNS code, a banner). */
export function assertsOn(assertions: readonly Pick<Assertion, 'source'>[] | undefined, source: string): boolean {
  return assertions?.some((a) => a.source === source) ?? false;
}

const OID = /^\.?(?:0|[1-9]\d{0,9})(?:\.(?:0|[1-9]\d{0,9})){1,127}$/;

/** A numeric object identifier, "1.3.6.1.2.1.1.3.0" (a leading dot allowed, as net-snmp tools print them). */
export function isOid(value: string): boolean {
  return OID.test(value);
}

/** The form options.oids and agents use: no leading dot. */
export function canonicalOid(value: string): string {
  return value.startsWith('.') ? value.slice(1) : value;
}
