// What the service form offers per check type: the endpoint format and the options the API
// accepts for it. The check types come from the API's own catalogue (shared/src); the option
// fields mirror shared/src/check-options.ts, and test/web/services.test.ts keeps them equal.
import { CHECK_TYPES, checkFamily, endpointFormat, normaliseCheckType, type CheckFamily, type EndpointFormat } from '../../../../../shared/src/check-types.js';

export type OptionKind = 'text' | 'textarea' | 'number' | 'boolean' | 'select' | 'headers' | 'status-list' | 'secret';

export interface OptionSpec {
  key: string;
  label: string;
  kind: OptionKind;
  hint?: string;
  choices?: readonly string[];
  /** What the agent does when a boolean option is not set. */
  defaultText?: string;
}

type Family = Exclude<CheckFamily, 'TLS_CERTIFICATE'>;

/** Every check type POST /services accepts, in the API's own catalogue's order. */
export { CHECK_TYPES };

export const ENDPOINT_HINTS: Record<EndpointFormat, { hint: string; example: string }> = {
  'http-url': { hint: 'A URL starting with http:// or https://', example: 'https://example.com/health' },
  'ws-url': { hint: 'A URL starting with ws:// or wss://', example: 'wss://example.com/socket' },
  'host-port': { hint: 'host:port, IPv6 in brackets', example: 'db.internal:5432' },
  host: { hint: 'A hostname or an IP address', example: 'example.com' },
};

const MIN_FAILING: OptionSpec = {
  key: 'min_failing_locations',
  label: 'Failing locations before RED',
  kind: 'number',
  hint: 'How many locations must agree before the service turns RED or YELLOW (default 1).',
};
const HEADERS: OptionSpec = { key: 'headers', label: 'Headers', kind: 'headers', hint: 'One "Name: value" per line.' };
const VERIFY_TLS: OptionSpec = { key: 'verify_tls', label: 'Verify TLS certificate', kind: 'boolean', defaultText: 'yes' };
const USERNAME: OptionSpec = { key: 'username', label: 'Username', kind: 'text' };
const PASSWORD: OptionSpec = { key: 'password', label: 'Password', kind: 'secret' };
const DATABASE: OptionSpec = { key: 'database', label: 'Database', kind: 'text' };

const OPTIONS: Record<Family, OptionSpec[]> = {
  HTTP: [
    { key: 'method', label: 'HTTP method', kind: 'select', choices: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] },
    HEADERS,
    { key: 'body', label: 'Request body', kind: 'textarea' },
    { key: 'expected_status', label: 'Expected status codes', kind: 'status-list', hint: 'Comma separated codes or classes, e.g. 200, 204, 3xx (default 200–399).' },
    { key: 'keyword', label: 'Keyword', kind: 'text', hint: 'Text the response body must contain.' },
    { key: 'keyword_inverted', label: 'Keyword must be absent', kind: 'boolean', defaultText: 'no' },
    { key: 'follow_redirects', label: 'Follow redirects', kind: 'boolean', defaultText: 'yes' },
    VERIFY_TLS,
    MIN_FAILING,
  ],
  TCP: [MIN_FAILING],
  ICMP: [MIN_FAILING],
  DNS: [
    { key: 'dns_record_type', label: 'DNS record type', kind: 'select', choices: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SOA', 'SRV', 'PTR', 'CAA'] },
    { key: 'resolver', label: 'Resolver', kind: 'text', hint: 'An IP address, optionally with :port; empty uses the system resolver.' },
    { key: 'expected_answer', label: 'Expected answer', kind: 'text' },
    MIN_FAILING,
  ],
  WEBSOCKET: [HEADERS, VERIFY_TLS, MIN_FAILING],
  SMTP: [{ key: 'ehlo_name', label: 'EHLO name', kind: 'text' }, MIN_FAILING],
  IMAP: [MIN_FAILING],
  FTP: [MIN_FAILING],
  SSH: [USERNAME, PASSWORD, { key: 'private_key', label: 'Private key', kind: 'secret', hint: 'PEM' }, MIN_FAILING],
  REDIS: [USERNAME, PASSWORD, MIN_FAILING],
  MYSQL: [USERNAME, PASSWORD, DATABASE, MIN_FAILING],
  MONGODB: [USERNAME, PASSWORD, DATABASE, MIN_FAILING],
  POSTGRES: [USERNAME, PASSWORD, DATABASE, MIN_FAILING],
  GRPC: [
    { key: 'tls', label: 'Use TLS', kind: 'boolean', defaultText: 'no' },
    VERIFY_TLS,
    { key: 'service', label: 'Health service name', kind: 'text', hint: 'Empty checks the server as a whole.' },
    MIN_FAILING,
  ],
  MULTISTEP: [VERIFY_TLS, MIN_FAILING],
};

export function optionsOf(checkType: string): OptionSpec[] {
  const type = normaliseCheckType(checkType);
  const family = type ? checkFamily(type) : undefined;
  return family === undefined || family === 'TLS_CERTIFICATE' ? [] : OPTIONS[family];
}

export function endpointHintOf(checkType: string): { hint: string; example: string } | undefined {
  const type = normaliseCheckType(checkType);
  return type && ENDPOINT_HINTS[endpointFormat(type)];
}
