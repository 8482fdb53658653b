// The `options` object of a service, validated per check type on create and update: an
// option that does not belong to the type is refused. Probers read these names.
import { isIP } from 'node:net';
import { z } from 'zod';
import { checkFamily, type CheckFamily, type CheckType } from './check-types.js';
import { parseHostPort } from './endpoints.js';
import { httpHeaders } from './http-headers.js';

/** Options stored encrypted at rest and masked in API answers. */
export const SECRET_OPTION_KEYS = ['password', 'private_key'] as const;

const common = {
  // Read by the control plane (multi-location status), not by probers.
  min_failing_locations: z.number().int().min(1).max(50).optional(),
};

const text = (max: number) => z.string().max(max);
const headers = httpHeaders(8192).refine((h) => Object.keys(h).length <= 50, 'at most 50 headers');
const STATUS_CLASS = /^[1-5]xx$/i;
const credentials = {
  username: text(256).min(1).optional(),
  password: text(1024).optional(),
};

const schemas = {
  HTTP: z.strictObject({
    ...common,
    method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']).optional(),
    headers: headers.optional(),
    body: text(65_536).optional(),
    expected_status: z
      .array(z.union([z.number().int().min(100).max(599), z.string().regex(STATUS_CLASS, 'a status class looks like "2xx"')]))
      .min(1)
      .max(50)
      .optional(),
    keyword: text(1024).min(1).optional(),
    keyword_inverted: z.boolean().optional(),
    follow_redirects: z.boolean().optional(),
    verify_tls: z.boolean().optional(),
  }),
  TCP: z.strictObject({ ...common }),
  ICMP: z.strictObject({ ...common }),
  DNS: z.strictObject({
    ...common,
    dns_record_type: z.enum(['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SOA', 'SRV', 'PTR', 'CAA']).optional(),
    // An address, not a name: a resolver found through DNS would make the check depend on
    // the very thing it checks (and node:dns setServers takes addresses only).
    resolver: text(300).refine(isResolverAddress, 'a resolver is an IP address, optionally with :port (IPv6 in brackets)').optional(),
    expected_answer: text(1024).min(1).optional(),
  }),
  WEBSOCKET: z.strictObject({ ...common, headers: headers.optional(), verify_tls: z.boolean().optional() }),
  SMTP: z.strictObject({ ...common, ehlo_name: text(255).min(1).optional() }),
  IMAP: z.strictObject({ ...common }),
  FTP: z.strictObject({ ...common }),
  SSH: z.strictObject({ ...common, ...credentials, private_key: text(16_384).min(1).optional() }),
  REDIS: z.strictObject({ ...common, ...credentials }),
  MYSQL: z.strictObject({ ...common, ...credentials, database: text(256).min(1).optional() }),
  MONGODB: z.strictObject({ ...common, ...credentials, database: text(256).min(1).optional() }),
  POSTGRES: z.strictObject({ ...common, ...credentials, database: text(256).min(1).optional() }),
  GRPC: z.strictObject({ ...common, tls: z.boolean().optional(), verify_tls: z.boolean().optional(), service: text(256).optional() }),
  // Set by /ssl-certificates, which validates the PEM; when present it is the only trust root.
  TLS_CERTIFICATE: z.strictObject({ ...common, warn_days: z.number().int().min(1).max(365).optional(), ca_certificate: text(65_536).min(1).optional() }),
} satisfies Record<CheckFamily, z.ZodType<Record<string, unknown>>>;

/** The options of one check family as its schema produces them (what its prober reads). */
export type CheckOptions<F extends CheckFamily = CheckFamily> = z.infer<(typeof schemas)[F]>;

function isResolverAddress(value: string): boolean {
  if (isIP(value.replace(/^\[(.*)\]$/, '$1'))) return true;
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
