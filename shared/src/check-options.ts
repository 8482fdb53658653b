// The `options` object of a service, validated per check type on create and update: an
// option that does not belong to the type is refused. Probers read these names.
import { isIP } from 'node:net';
import * as z from 'zod/mini';
import { ASSERTION_SOURCES, assertionList, canonicalOid, compilePattern, isOid, jsonPathProblem, STEP_SOURCES } from './assertions.js';
import { checkFamily, type CheckFamily, type CheckType } from './check-types.js';
import { parseHostPort, withoutBrackets } from './endpoints.js';
import { isEscapedText } from './escapes.js';
import { PLACEHOLDER } from './placeholders.js';
import { httpHeaders } from './http-headers.js';
import './zod-english.js';

// In zod's functional build, as the agent's configuration: the agent's `check` command is what
// reads these schemas there, and a bundle keeps only what they use.

/** Options stored encrypted at rest and masked in API answers, as dotted paths into `options`. */
export const SECRET_OPTION_KEYS = [
  'password',
  'private_key',
  'bearer_token',
  'client_key',
  'oauth2.client_secret',
  // SNMP's community and v3 keys, RADIUS's shared secret, a NATS token.
  'community',
  'auth_password',
  'priv_password',
  'secret',
  'token',
] as const;

/** The longest a check may run (timeout_seconds at most 120). */
const MAX_CHECK_MS = 120_000;
const milliseconds = z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(MAX_CHECK_MS)));

/** What every family takes: the status rule's inputs, the thresholds, the retries and the assertions of its sources. */
const commonTo = (family: CheckFamily) => ({
  // Read by the control plane (multi-location status), not by probers.
  min_failing_locations: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(50))),
  // A passing check slower than degraded_after_ms (default 1000) is YELLOW; slower than fail_after_ms, RED.
  degraded_after_ms: milliseconds,
  fail_after_ms: milliseconds,
  // Read by the agent: a failed run is tried again this many times (default 0), this many
  // seconds apart (default 5), before it reports RED. A lossy link then pages nobody.
  retries: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(10))),
  retry_interval_seconds: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(300))),
  assertions: z.optional(assertionList(ASSERTION_SOURCES[family])),
});

/** An option a family cannot go without: its absence is named as such, not as a wrong type. */
const requiredText = (what: string, max: number) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${what} is required` : `${what} must be a string`) }).check(z.minLength(1), z.maxLength(max));
const text = (max: number) => z.string().check(z.maxLength(max));
const nonEmptyText = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const headers = httpHeaders(8192).check(z.refine((h) => Object.keys(h).length <= 50, 'at most 50 headers'));
const STATUS_CLASS = /^[1-5]xx$/i;
const credentials = {
  username: z.optional(nonEmptyText(256)),
  password: z.optional(text(1024)),
};
const flag = z.optional(z.boolean());
const pem = z.optional(nonEmptyText(65_536));

// A proxy is reached in plain HTTP (CONNECT tunnels an https target): TLS to the proxy itself is not spoken.
const PROXY_URL = /^http:\/\/[^\s/?#]+(:\d{1,5})?\/?$/i;
/** How an HTTP client reaches and proves itself to its target (HTTP, WEBSOCKET, MULTISTEP). */
const httpClient = {
  verify_tls: flag,
  // "env": the agent's HTTP_PROXY, HTTPS_PROXY and NO_PROXY.
  proxy: z.optional(
    z.string().check(
      z.maxLength(2048),
      z.refine((v) => v === 'env' || (PROXY_URL.test(v) && URL.canParse(v)), 'a proxy is http://[user:password@]host:port (https targets go through CONNECT), or "env"'),
    ),
  ),
  bearer_token: z.optional(nonEmptyText(8192)),
  oauth2: z.optional(
    z.strictObject({
      token_url: z.url({ protocol: /^https?$/, error: 'token_url is an http(s) URL' }).check(z.maxLength(2048)),
      client_id: nonEmptyText(1024),
      client_secret: z.optional(text(4096)),
      scopes: z.optional(z.array(nonEmptyText(256)).check(z.maxLength(50))),
      audience: z.optional(nonEmptyText(1024)),
    }),
  ),
  client_certificate: pem,
  client_key: pem,
  ca_certificate: pem,
};

/** What the HTTP-speaking families share beyond the client: the request's version and what a failure keeps. */
const httpRequestOptions = {
  ...httpClient,
  http_version: z.optional(z.enum(['1.1', '2', 'auto'])),
  save_failed_response: flag,
};

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const step = z.strictObject({
  name: nonEmptyText(100),
  method: z.optional(z.enum(METHODS)),
  url: nonEmptyText(2048),
  headers: z.optional(headers),
  body: z.optional(text(65_536)),
  assertions: z.optional(assertionList(STEP_SOURCES)),
  extract: z.optional(
    z
      .array(
        z.strictObject({
          name: z.string().check(z.regex(VARIABLE, 'a variable name is letters, digits and _, not starting with a digit (at most 64)')),
          source: z.enum(['json', 'header', 'body', 'status']),
          property: z.optional(nonEmptyText(1024)),
        }),
      )
      .check(z.maxLength(20)),
  ),
});

const escapedSend = (what: string) =>
  nonEmptyText(4096).check(z.refine(isEscapedText, `${what} takes the escapes \\r, \\n, \\t, \\\\ and \\xHH; a backslash is written \\\\`));
const HEX = /^(?:[0-9a-f]{2})+$/i;
const tlsClient = { verify_tls: flag, ca_certificate: pem };
/** What an SNMP check asks when options.oids is not given: sysUpTime.0, which every agent answers. */
export const SYS_UPTIME = '1.3.6.1.2.1.1.3.0';
const SNMP_AUTH = ['MD5', 'SHA', 'SHA-224', 'SHA-256', 'SHA-384', 'SHA-512'] as const;
const SNMP_PRIV = ['DES', 'AES', 'AES-256B', 'AES-256R'] as const;
// USM derives its keys from at least 8 characters (RFC 3414 section 11.2).
const usmPassword = z.string().check(z.minLength(8, 'an SNMPv3 password is at least 8 characters'), z.maxLength(1024));
const MQTT_WILDCARD = /[#+]/;

const schemas = {
  HTTP: z.strictObject({
    ...commonTo('HTTP'),
    ...httpRequestOptions,
    method: z.optional(z.enum(METHODS)),
    headers: z.optional(headers),
    body: z.optional(text(65_536)),
    expected_status: z.optional(
      z
        .array(z.union([z.number().check(z.int(), z.minimum(100), z.maximum(599)), z.string().check(z.regex(STATUS_CLASS, 'a status class looks like "2xx"'))]))
        .check(z.minLength(1), z.maxLength(50)),
    ),
    keyword: z.optional(nonEmptyText(1024)),
    keyword_inverted: flag,
    follow_redirects: flag,
  }),
  // `send` takes \r, \n, \t, \\ and \xHH escapes; the first 4 KiB read back is the `body` source.
  TCP: z.strictObject({
    ...commonTo('TCP'),
    send: z.optional(escapedSend('send')),
  }),
  ICMP: z.strictObject({ ...commonTo('ICMP') }),
  DNS: z.strictObject({
    ...commonTo('DNS'),
    dns_record_type: z.optional(z.enum(['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SOA', 'SRV', 'PTR', 'CAA'])),
    // An address, not a name: a resolver found through DNS would make the check depend on
    // the very thing it checks (and node:dns setServers takes addresses only).
    resolver: z.optional(text(300).check(z.refine(isResolverAddress, 'a resolver is an IP address, optionally with :port (IPv6 in brackets)'))),
    expected_answer: z.optional(nonEmptyText(1024)),
  }),
  WEBSOCKET: z.strictObject({ ...commonTo('WEBSOCKET'), ...httpClient, headers: z.optional(headers) }),
  SMTP: z.strictObject({ ...commonTo('SMTP'), ehlo_name: z.optional(nonEmptyText(255)) }),
  IMAP: z.strictObject({ ...commonTo('IMAP') }),
  FTP: z.strictObject({ ...commonTo('FTP') }),
  SSH: z.strictObject({ ...commonTo('SSH'), ...credentials, private_key: z.optional(nonEmptyText(16_384)) }),
  REDIS: z.strictObject({ ...commonTo('REDIS'), ...credentials }),
  // `query`: a read-only statement, run in a transaction that is rolled back; its first column of the first row is the `result` source.
  MYSQL: z.strictObject({ ...commonTo('MYSQL'), ...credentials, database: z.optional(nonEmptyText(256)), query: z.optional(nonEmptyText(4096)) }),
  // `command`: a database command as a JSON document; its reply is the `result` source.
  MONGODB: z.strictObject({ ...commonTo('MONGODB'), ...credentials, database: z.optional(nonEmptyText(256)), command: z.optional(jsonDocument()) }),
  POSTGRES: z.strictObject({ ...commonTo('POSTGRES'), ...credentials, database: z.optional(nonEmptyText(256)), query: z.optional(nonEmptyText(4096)) }),
  GRPC: z.strictObject({ ...commonTo('GRPC'), tls: flag, verify_tls: flag, service: z.optional(text(256)) }),
  // Set by /ssl-certificates, which validates the PEM; when present it is the only trust root.
  TLS_CERTIFICATE: z.strictObject({ ...commonTo('TLS_CERTIFICATE'), warn_days: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(365))), ca_certificate: pem }),
  MULTISTEP: z.strictObject({
    ...commonTo('MULTISTEP'),
    ...httpRequestOptions,
    steps: z.array(step).check(z.minLength(1), z.maxLength(20), z.superRefine(checkStepVariables)),
  }),
  SNMP: z.strictObject({
    ...commonTo('SNMP'),
    version: z.optional(z.enum(['1', '2c', '3'])),
    community: z.optional(nonEmptyText(256)),
    oids: z.optional(
      z.array(z.string().check(z.maxLength(1400), z.refine(isOid, 'an OID is numeric, such as 1.3.6.1.2.1.1.3.0'))).check(z.minLength(1, 'oids lists 1 to 20 OIDs'), z.maxLength(20, 'oids lists 1 to 20 OIDs')),
    ),
    username: z.optional(nonEmptyText(256)),
    auth_protocol: z.optional(z.enum(SNMP_AUTH)),
    auth_password: z.optional(usmPassword),
    priv_protocol: z.optional(z.enum(SNMP_PRIV)),
    priv_password: z.optional(usmPassword),
  }),
  NTP: z.strictObject({ ...commonTo('NTP') }),
  // One of the two is sent; the first 4 KiB of the datagram that comes back is the `body` source.
  UDP: z.strictObject({
    ...commonTo('UDP'),
    send: z.optional(escapedSend('send')),
    send_hex: z.optional(z.string().check(z.maxLength(8192), z.regex(HEX, 'send_hex is pairs of hex digits, such as "ff0a"'))),
  }),
  LDAP: z.strictObject({
    ...commonTo('LDAP'),
    ...tlsClient,
    bind_dn: z.optional(nonEmptyText(1024)),
    password: z.optional(text(1024)),
    // With base_dn the check searches; the filter defaults to (objectClass=*), the scope to sub.
    base_dn: z.optional(text(1024)),
    filter: z.optional(nonEmptyText(4096)),
    scope: z.optional(z.enum(['base', 'one', 'sub'])),
  }),
  RADIUS: z.strictObject({
    ...commonTo('RADIUS'),
    secret: requiredText("the RADIUS client's shared secret", 256),
    username: requiredText('the user name of the Access-Request', 253),
    // Sent PAP; RADIUS hides at most 128 bytes of it (RFC 2865 section 5.2).
    password: z.optional(text(128)),
    nas_identifier: z.optional(nonEmptyText(253)),
  }),
  SIP: z.strictObject({ ...commonTo('SIP') }),
  MQTT: z.strictObject({
    ...commonTo('MQTT'),
    ...tlsClient,
    ...credentials,
    topic: z.optional(nonEmptyText(1024)),
    // true (default): publish a unique payload and receive it back; false: wait for a retained or the next message.
    publish: flag,
  }),
  AMQP: z.strictObject({ ...commonTo('AMQP'), ...tlsClient, ...credentials, queue: z.optional(nonEmptyText(255)) }),
  NATS: z.strictObject({
    ...commonTo('NATS'),
    ...credentials,
    token: z.optional(nonEmptyText(1024)),
    subject: z.optional(nonEmptyText(1024)),
    // What the request carries (a subject's responder reads it); empty by default.
    payload: z.optional(text(65_536)),
  }),
  DOCKER: z.strictObject({
    ...commonTo('DOCKER'),
    socket: z.optional(z.string().check(z.maxLength(1024), z.regex(/^\/[^\0]*$/, 'socket is the absolute path of a Docker-compatible socket, such as /run/podman/podman.sock'))),
  }),
  TRACEROUTE: z.strictObject({
    ...commonTo('TRACEROUTE'),
    max_hops: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(64))),
    packets: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(20))),
    ptr_lookup: flag,
  }),
  DOMAIN: z.strictObject({
    ...commonTo('DOMAIN'),
    // Where to ask instead of the registry the IANA bootstrap file names.
    rdap_url: z.optional(z.url({ protocol: /^https?$/, error: 'rdap_url is an http(s) URL, such as https://rdap.example/' }).check(z.maxLength(2048))),
    // YELLOW when the domain expires within this many days (default 30).
    warn_days: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(365))),
  }),
} satisfies Record<CheckFamily, z.ZodMiniType<Record<string, unknown>>>;

/** Each family's options schema, for the API's documentation (OpenAPI); requests go through parseCheckOptions. */
export const CHECK_OPTION_SCHEMAS: Readonly<Record<CheckFamily, z.ZodMiniType>> = schemas;

/** The options of one check family as its schema produces them (what its prober reads). */
export type CheckOptions<F extends CheckFamily = CheckFamily> = z.infer<(typeof schemas)[F]>;

/** A JSON object, given as one or as its text; parsed to the object. */
function jsonDocument() {
  return z.pipe(
    z.union([z.string().check(z.maxLength(16_384)), z.record(z.string(), z.unknown())]),
    z.transform((value, ctx) => {
      if (typeof value !== 'string') return value;
      try {
        const parsed: unknown = JSON.parse(value);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
      } catch {
        // Reported below, as for any other text.
      }
      ctx.issues.push({ code: 'custom', message: 'a command is a JSON object', input: value });
      return z.NEVER;
    }),
  );
}

type Step = z.infer<typeof step>;

/** Every `{{name}}` a step uses was extracted by an earlier step; `{{secrets.NAME}}` is the control plane's to check. */
function checkStepVariables(steps: Step[], ctx: z.core.$RefinementCtx<Step[]>): void {
  const known = new Set<string>();
  steps.forEach((s, index) => {
    const texts: [string, string][] = [['url', s.url], ...Object.entries(s.headers ?? {}).map(([k, v]): [string, string] => [`headers.${k}`, v])];
    if (s.body !== undefined) texts.push(['body', s.body]);
    for (const [field, value] of texts) {
      for (const [, name] of value.matchAll(PLACEHOLDER)) {
        if (name!.startsWith('secrets.') || known.has(name!)) continue;
        ctx.addIssue({ code: 'custom', path: [index, ...field.split('.')], message: `{{${name}}} is not extracted by an earlier step`, input: value });
      }
    }
    for (const [i, e] of (s.extract ?? []).entries()) {
      if (e.source !== 'status' && e.property === undefined) ctx.addIssue({ code: 'custom', path: [index, 'extract', i, 'property'], message: `extracting from ${e.source} needs a property`, input: e });
      const problem = e.source === 'json' && e.property !== undefined ? jsonPathProblem(e.property) : undefined;
      if (problem) ctx.addIssue({ code: 'custom', path: [index, 'extract', i, 'property'], message: problem, input: e });
      if (e.source === 'body' && e.property !== undefined) {
        try {
          compilePattern(e.property);
        } catch {
          ctx.addIssue({ code: 'custom', path: [index, 'extract', i, 'property'], message: 'not a regular expression', input: e });
        }
      }
      known.add(e.name);
    }
  });
}

/** Client options that only make sense together, or that would contradict each other. */
function clientConflict(options: Record<string, unknown>): { path: string; message: string } | undefined {
  if (options.bearer_token !== undefined && options.oauth2 !== undefined) return { path: 'bearer_token', message: 'bearer_token and oauth2 both set the Authorization header: choose one' };
  if ((options.client_certificate === undefined) !== (options.client_key === undefined)) {
    const missing = options.client_certificate === undefined ? 'client_certificate' : 'client_key';
    return { path: missing, message: 'client_certificate and client_key go together' };
  }
  return undefined;
}

/** The option a source's value comes from, by family: an assertion on it without the option has nothing to judge. */
const SOURCE_NEEDS: Partial<Record<CheckFamily, Record<string, string>>> = {
  MONGODB: { result: 'command' },
  MYSQL: { result: 'query' },
  POSTGRES: { result: 'query' },
  LDAP: { entries: 'base_dn', attribute: 'base_dn' },
  MQTT: { message: 'topic', json: 'topic' },
  AMQP: { message_count: 'queue', consumer_count: 'queue' },
  NATS: { message: 'subject' },
};

type Problem = { path: string; message: string } | undefined;

/** An assertion on a source the check's options leave without a value (a `result` without a query). */
function sourceWithoutOption(family: CheckFamily, options: Record<string, unknown>): Problem {
  const needs = SOURCE_NEEDS[family];
  if (!needs) return undefined;
  for (const [index, a] of ((options.assertions ?? []) as { source: string }[]).entries()) {
    const option = needs[a.source];
    if (option !== undefined && options[option] === undefined) return { path: `assertions.${index}.source`, message: `source ${a.source} needs options.${option}` };
  }
  return undefined;
}

/** Options of one family that only make sense together, or contradict each other. */
function familyConflict(family: CheckFamily, o: Record<string, unknown>): Problem {
  const has = (key: string) => o[key] !== undefined;
  switch (family) {
    case 'SNMP': {
      const v3 = o.version === '3';
      if (v3 && !has('username')) return { path: 'username', message: 'SNMPv3 needs a username' };
      if (v3 && has('community')) return { path: 'community', message: 'SNMPv3 has no community: it signs with username and auth_password' };
      const usm = ['username', 'auth_protocol', 'auth_password', 'priv_protocol', 'priv_password'].find(has);
      if (!v3 && usm) return { path: usm, message: `${usm} is for SNMPv3: set version to "3"` };
      if (has('auth_protocol') && !has('auth_password')) return { path: 'auth_password', message: 'auth_protocol needs auth_password' };
      if (has('priv_protocol') && !has('priv_password')) return { path: 'priv_password', message: 'priv_protocol needs priv_password' };
      if (has('priv_password') && !has('auth_password')) return { path: 'auth_password', message: 'privacy (priv_password) needs authentication (auth_password) too' };
      const asked = new Set(((o.oids as string[] | undefined) ?? [SYS_UPTIME]).map(canonicalOid));
      for (const [index, a] of ((o.assertions ?? []) as { source: string; property?: string }[]).entries()) {
        if (a.source === 'oid' && a.property !== undefined && isOid(a.property) && !asked.has(canonicalOid(a.property))) return { path: `assertions.${index}.property`, message: `${a.property} is not one of options.oids` };
      }
      return undefined;
    }
    case 'UDP':
      if (has('send') === has('send_hex')) return { path: 'send', message: 'a UDP check sends one datagram: give send or send_hex (not both)' };
      return undefined;
    case 'LDAP':
      if (has('password') && !has('bind_dn')) return { path: 'bind_dn', message: 'a password binds as bind_dn: give bind_dn too' };
      for (const key of ['filter', 'scope']) if (has(key) && !has('base_dn')) return { path: 'base_dn', message: `${key} belongs to a search: give base_dn too` };
      return undefined;
    case 'MQTT':
      if (has('password') && !has('username')) return { path: 'username', message: 'a password goes with a username' };
      if (o.publish === false && !has('topic')) return { path: 'topic', message: 'waiting for a message needs a topic' };
      if (o.publish !== false && typeof o.topic === 'string' && MQTT_WILDCARD.test(o.topic)) return { path: 'topic', message: 'a round trip publishes to its topic, which cannot hold + or #; set publish to false to wait on a filter' };
      return undefined;
    case 'NATS':
      if (has('token') && (has('username') || has('password'))) return { path: 'token', message: 'a token or a username and password: choose one' };
      if (has('password') && !has('username')) return { path: 'username', message: 'a password goes with a username' };
      if (has('payload') && !has('subject')) return { path: 'subject', message: 'a payload is sent to a subject: give subject too' };
      return undefined;
    default:
      return undefined;
  }
}

function isResolverAddress(value: string): boolean {
  if (isIP(withoutBrackets(value))) return true;
  const hostPort = parseHostPort(value);
  return hostPort !== null && isIP(hostPort.host) !== 0;
}

export type ParsedOptions =
  | { ok: true; options: Record<string, unknown> }
  | { ok: false; issues: { path: string; message: string }[] };

/** `raw` is the request's `options`: absent (undefined or null) means no options. */
export function parseCheckOptions(checkType: CheckType, raw: unknown): ParsedOptions {
  const parsed = schemas[checkFamily(checkType)].safeParse(raw ?? {});
  if (parsed.success) {
    const { degraded_after_ms: degraded, fail_after_ms: fail } = parsed.data as { degraded_after_ms?: number; fail_after_ms?: number };
    if (fail !== undefined && fail <= (degraded ?? 0)) return { ok: false, issues: [{ path: 'fail_after_ms', message: 'fail_after_ms must be greater than degraded_after_ms' }] };
    const family = checkFamily(checkType);
    const unanswerable = sourceWithoutOption(family, parsed.data) ?? familyConflict(family, parsed.data) ?? clientConflict(parsed.data);
    if (unanswerable) return { ok: false, issues: [unanswerable] };
    return { ok: true, options: parsed.data };
  }
  return {
    ok: false,
    issues: parsed.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.'),
      message:
        issue.code === 'unrecognized_keys'
          ? `${issue.keys.join(', ')} ${issue.keys.length > 1 ? 'are not options' : 'is not an option'} of check_type ${checkType}`
          : issue.message,
    })),
  };
}
