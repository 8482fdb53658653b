// The `options` object of a service, validated per check type on create and update: an
// option that does not belong to the type is refused. Probers read these names.
import { isIP } from 'node:net';
import * as z from 'zod/mini';
import { ASSERTION_SOURCES, assertionList, compilePattern, jsonPathProblem, STEP_SOURCES } from './assertions.js';
import { checkFamily, type CheckFamily, type CheckType } from './check-types.js';
import { parseHostPort, withoutBrackets } from './endpoints.js';
import { isEscapedText } from './escapes.js';
import { PLACEHOLDER } from './placeholders.js';
import { httpHeaders } from './http-headers.js';
import './zod-english.js';

// In zod's functional build, as the agent's configuration: the agent's `check` command is what
// reads these schemas there, and a bundle keeps only what they use.

/** Options stored encrypted at rest and masked in API answers, as dotted paths into `options`. */
export const SECRET_OPTION_KEYS = ['password', 'private_key', 'bearer_token', 'client_key', 'oauth2.client_secret'] as const;

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
    send: z.optional(nonEmptyText(4096).check(z.refine(isEscapedText, 'send takes the escapes \\r, \\n, \\t, \\\\ and \\xHH; a backslash is written \\\\'))),
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

/** A `result` assertion of a database check that runs nothing to have a result of. */
function resultWithoutQuery(family: CheckFamily, options: Record<string, unknown>): { path: string; message: string } | undefined {
  const asks = family === 'MONGODB' ? 'command' : family === 'MYSQL' || family === 'POSTGRES' ? 'query' : undefined;
  if (!asks || options[asks] !== undefined) return undefined;
  const index = ((options.assertions ?? []) as { source: string }[]).findIndex((a) => a.source === 'result');
  return index < 0 ? undefined : { path: `assertions.${index}.source`, message: `source result needs options.${asks}` };
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
    const unanswerable = resultWithoutQuery(checkFamily(checkType), parsed.data) ?? clientConflict(parsed.data);
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
