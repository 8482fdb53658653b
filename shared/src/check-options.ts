// The `options` object of a service, validated per check type on create and update: an
// option that does not belong to the type is refused. Probers read these names.
import { isIP } from 'node:net';
import * as z from 'zod/mini';
import { checkFamily, type CheckFamily, type CheckType } from './check-types.js';
import { parseHostPort, withoutBrackets } from './endpoints.js';
import { httpHeaders } from './http-headers.js';
import './zod-english.js';

// In zod's functional build, as the agent's configuration: the agent's `check` command is what
// reads these schemas there, and a bundle keeps only what they use.

/** Options stored encrypted at rest and masked in API answers. */
export const SECRET_OPTION_KEYS = ['password', 'private_key'] as const;

const common = {
  // Read by the control plane (multi-location status), not by probers.
  min_failing_locations: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(50))),
};

const text = (max: number) => z.string().check(z.maxLength(max));
const nonEmptyText = (max: number) => z.string().check(z.minLength(1), z.maxLength(max));
const headers = httpHeaders(8192).check(z.refine((h) => Object.keys(h).length <= 50, 'at most 50 headers'));
const STATUS_CLASS = /^[1-5]xx$/i;
const credentials = {
  username: z.optional(nonEmptyText(256)),
  password: z.optional(text(1024)),
};
const flag = z.optional(z.boolean());

const schemas = {
  HTTP: z.strictObject({
    ...common,
    method: z.optional(z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])),
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
    verify_tls: flag,
  }),
  TCP: z.strictObject({ ...common }),
  ICMP: z.strictObject({ ...common }),
  DNS: z.strictObject({
    ...common,
    dns_record_type: z.optional(z.enum(['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SOA', 'SRV', 'PTR', 'CAA'])),
    // An address, not a name: a resolver found through DNS would make the check depend on
    // the very thing it checks (and node:dns setServers takes addresses only).
    resolver: z.optional(text(300).check(z.refine(isResolverAddress, 'a resolver is an IP address, optionally with :port (IPv6 in brackets)'))),
    expected_answer: z.optional(nonEmptyText(1024)),
  }),
  WEBSOCKET: z.strictObject({ ...common, headers: z.optional(headers), verify_tls: flag }),
  SMTP: z.strictObject({ ...common, ehlo_name: z.optional(nonEmptyText(255)) }),
  IMAP: z.strictObject({ ...common }),
  FTP: z.strictObject({ ...common }),
  SSH: z.strictObject({ ...common, ...credentials, private_key: z.optional(nonEmptyText(16_384)) }),
  REDIS: z.strictObject({ ...common, ...credentials }),
  MYSQL: z.strictObject({ ...common, ...credentials, database: z.optional(nonEmptyText(256)) }),
  MONGODB: z.strictObject({ ...common, ...credentials, database: z.optional(nonEmptyText(256)) }),
  POSTGRES: z.strictObject({ ...common, ...credentials, database: z.optional(nonEmptyText(256)) }),
  GRPC: z.strictObject({ ...common, tls: flag, verify_tls: flag, service: z.optional(text(256)) }),
  // Set by /ssl-certificates, which validates the PEM; when present it is the only trust root.
  TLS_CERTIFICATE: z.strictObject({ ...common, warn_days: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(365))), ca_certificate: z.optional(nonEmptyText(65_536)) }),
} satisfies Record<CheckFamily, z.ZodMiniType<Record<string, unknown>>>;

/** The options of one check family as its schema produces them (what its prober reads). */
export type CheckOptions<F extends CheckFamily = CheckFamily> = z.infer<(typeof schemas)[F]>;

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
  if (parsed.success) return { ok: true, options: parsed.data };
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
