// What the service form offers per check type: the endpoint format and the options the API
// accepts for it, each in the form's section it belongs to. The check types come from the
// API's own catalogue (shared/src); the option fields mirror shared/src/check-options.ts, and
// test/web/services.test.ts keeps them equal. Assertions and MULTISTEP steps have editors of
// their own (assertion-catalogue.ts, steps-editor.tsx).
import { CHECK_TYPES, checkFamily, endpointFormat, normaliseCheckType, type CheckFamily, type EndpointFormat } from '../../../../../shared/src/check-types.js';

/** `list`: comma separated; `json`: a JSON object as text; `secret`: masked when stored. */
export type OptionKind = 'text' | 'textarea' | 'number' | 'boolean' | 'select' | 'headers' | 'status-list' | 'secret' | 'list' | 'json';

/** Where the form shows an option: the check's own, or one of the sections below it. */
export type OptionSection = 'check' | 'thresholds' | 'authentication' | 'connection';

export interface OptionSpec {
  /** Its path in `options`, dotted when nested (`oauth2.client_id`). */
  key: string;
  label: string;
  kind: OptionKind;
  section: OptionSection;
  hint?: string;
  choices?: readonly string[];
  /** What the agent does when a boolean option is not set. */
  defaultText?: string;
  /** A secret typed on several lines (a PEM key). */
  multiline?: boolean;
}

export type Family = Exclude<CheckFamily, 'TLS_CERTIFICATE'>;

/** Every check type POST /services accepts, in the API's own catalogue's order. */
export { CHECK_TYPES };

export const ENDPOINT_HINTS: Record<EndpointFormat, { hint: string; example: string }> = {
  'http-url': { hint: 'A URL starting with http:// or https://', example: 'https://example.com/health' },
  'ws-url': { hint: 'A URL starting with ws:// or wss://', example: 'wss://example.com/socket' },
  'host-port': { hint: 'host:port, IPv6 in brackets', example: 'db.internal:5432' },
  host: { hint: 'A hostname or an IP address', example: 'example.com' },
  'host-optional-port': { hint: 'A host, or host:port for another port than the protocol’s own', example: 'switch-1.internal' },
  'ldap-url': { hint: 'A URL starting with ldap:// or ldaps://', example: 'ldaps://ldap.internal' },
  'sip-uri': { hint: 'sip:host[:port], with ;transport=tcp for TCP (UDP by default)', example: 'sip:pbx.internal' },
  'mqtt-url': { hint: 'A URL starting with mqtt:// or mqtts://, without credentials', example: 'mqtts://broker.internal' },
  'amqp-url': { hint: 'A URL starting with amqp:// or amqps://, the virtual host as its path', example: 'amqp://rabbit.internal/%2F' },
  'nats-url': { hint: 'A URL starting with nats:// or tls://', example: 'nats://nats.internal:4222' },
  container: { hint: 'A container’s name or id, on the agent’s host', example: 'web' },
  domain: { hint: 'A registered domain name', example: 'example.com' },
};

const check = (spec: Omit<OptionSpec, 'section'>): OptionSpec => ({ ...spec, section: 'check' });
const auth = (spec: Omit<OptionSpec, 'section'>): OptionSpec => ({ ...spec, section: 'authentication' });
const connection = (spec: Omit<OptionSpec, 'section'>): OptionSpec => ({ ...spec, section: 'connection' });
const threshold = (spec: Omit<OptionSpec, 'section'>): OptionSpec => ({ ...spec, section: 'thresholds' });

const THRESHOLDS = [
  threshold({ key: 'degraded_after_ms', label: 'Degraded after (ms)', kind: 'number', hint: 'A passing check slower than this is YELLOW (default 1000).' }),
  threshold({ key: 'fail_after_ms', label: 'Failed after (ms)', kind: 'number', hint: 'A check slower than this is RED (none by default).' }),
  threshold({
    key: 'min_failing_locations',
    label: 'Failing locations before RED',
    kind: 'number',
    hint: 'How many locations must agree before the service turns RED or YELLOW (default 1).',
  }),
  threshold({ key: 'retries', label: 'Retries', kind: 'number', hint: 'Tries again this many times (0 to 10) within the run before a failure counts (default 0).' }),
  threshold({ key: 'retry_interval_seconds', label: 'Retry interval (s)', kind: 'number', hint: 'Wait between retries, 1 to 300 s (default 5).' }),
];

/** The methods an HTTP check or a MULTISTEP step may send. */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const METHOD = check({ key: 'method', label: 'HTTP method', kind: 'select', choices: HTTP_METHODS });
const HEADERS = check({ key: 'headers', label: 'Headers', kind: 'headers', hint: 'One "Name: value" per line.' });
const USERNAME = check({ key: 'username', label: 'Username', kind: 'text' });
const PASSWORD = check({ key: 'password', label: 'Password', kind: 'secret' });
const DATABASE = check({ key: 'database', label: 'Database', kind: 'text' });
const QUERY = check({ key: 'query', label: 'Query', kind: 'textarea', hint: 'A read-only statement, rolled back after; the first column of its first row is the "result" source.' });

/** How an HTTP client proves itself (HTTP, WEBSOCKET, MULTISTEP). */
const CLIENT_AUTHENTICATION = [
  auth({ key: 'bearer_token', label: 'Bearer token', kind: 'secret', hint: 'Sent as "Authorization: Bearer …".' }),
  auth({ key: 'oauth2.token_url', label: 'OAuth2 token URL', kind: 'text', hint: 'Client credentials flow: the token it returns is sent as a bearer token.' }),
  auth({ key: 'oauth2.client_id', label: 'OAuth2 client ID', kind: 'text' }),
  auth({ key: 'oauth2.client_secret', label: 'OAuth2 client secret', kind: 'secret' }),
  auth({ key: 'oauth2.scopes', label: 'OAuth2 scopes', kind: 'list', hint: 'Comma separated.' }),
  auth({ key: 'oauth2.audience', label: 'OAuth2 audience', kind: 'text' }),
  auth({ key: 'client_certificate', label: 'Client certificate', kind: 'textarea', hint: 'PEM, for mutual TLS.' }),
  auth({ key: 'client_key', label: 'Client key', kind: 'secret', multiline: true, hint: 'PEM, the client certificate’s private key.' }),
];

const PROXY = connection({ key: 'proxy', label: 'Proxy', kind: 'text', hint: 'http://[user:password@]host:port, or "env" for the agent’s HTTP_PROXY and NO_PROXY.' });
const VERIFY_TLS = connection({ key: 'verify_tls', label: 'Verify TLS certificate', kind: 'boolean', defaultText: 'yes' });
const CA_CERTIFICATE = connection({ key: 'ca_certificate', label: 'CA certificate', kind: 'textarea', hint: 'PEM: trust this CA instead of the system’s.' });
const HTTP_VERSION = connection({ key: 'http_version', label: 'HTTP version', kind: 'select', choices: ['1.1', '2', 'auto'] });
const SAVE_FAILED = connection({ key: 'save_failed_response', label: 'Save failed responses', kind: 'boolean', defaultText: 'no', hint: 'Keep the status, headers and body of a failed check with its result.' });

const HTTP_REQUEST_CLIENT = [...CLIENT_AUTHENTICATION, HTTP_VERSION, PROXY, VERIFY_TLS, CA_CERTIFICATE, SAVE_FAILED];

const OPTIONS: Record<Family, OptionSpec[]> = {
  HTTP: [
    METHOD,
    HEADERS,
    check({ key: 'body', label: 'Request body', kind: 'textarea' }),
    check({ key: 'expected_status', label: 'Expected status codes', kind: 'status-list', hint: 'Comma separated codes or classes, e.g. 200, 204, 3xx (default 200–399).' }),
    check({ key: 'keyword', label: 'Keyword', kind: 'text', hint: 'Text the response body must contain.' }),
    check({ key: 'keyword_inverted', label: 'Keyword must be absent', kind: 'boolean', defaultText: 'no' }),
    check({ key: 'follow_redirects', label: 'Follow redirects', kind: 'boolean', defaultText: 'yes' }),
    ...HTTP_REQUEST_CLIENT,
  ],
  TCP: [check({ key: 'send', label: 'Send', kind: 'text', hint: 'Text sent once connected; \\r \\n \\t \\\\ and \\xHH escapes. What comes back is the "body" source.' })],
  ICMP: [],
  DNS: [
    check({ key: 'dns_record_type', label: 'DNS record type', kind: 'select', choices: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SOA', 'SRV', 'PTR', 'CAA'] }),
    check({ key: 'resolver', label: 'Resolver', kind: 'text', hint: 'An IP address, optionally with :port; empty uses the system resolver.' }),
    check({ key: 'expected_answer', label: 'Expected answer', kind: 'text' }),
  ],
  WEBSOCKET: [HEADERS, ...CLIENT_AUTHENTICATION, PROXY, VERIFY_TLS, CA_CERTIFICATE],
  SMTP: [check({ key: 'ehlo_name', label: 'EHLO name', kind: 'text' })],
  IMAP: [],
  FTP: [],
  SSH: [USERNAME, PASSWORD, check({ key: 'private_key', label: 'Private key', kind: 'secret', multiline: true, hint: 'PEM.' })],
  REDIS: [USERNAME, PASSWORD],
  MYSQL: [USERNAME, PASSWORD, DATABASE, QUERY],
  MONGODB: [
    USERNAME,
    PASSWORD,
    DATABASE,
    check({ key: 'command', label: 'Command', kind: 'json', hint: 'A database command as a JSON object, e.g. {"ping": 1}; its reply is the "result" source.' }),
  ],
  POSTGRES: [USERNAME, PASSWORD, DATABASE, QUERY],
  GRPC: [
    check({ key: 'tls', label: 'Use TLS', kind: 'boolean', defaultText: 'no' }),
    check({ key: 'verify_tls', label: 'Verify TLS certificate', kind: 'boolean', defaultText: 'yes' }),
    check({ key: 'service', label: 'Health service name', kind: 'text', hint: 'Empty checks the server as a whole.' }),
  ],
  // Its requests are its steps (steps-editor.tsx).
  MULTISTEP: HTTP_REQUEST_CLIENT,
  SNMP: [
    check({ key: 'oids', label: 'OIDs', kind: 'list', hint: 'Comma separated, 1 to 20, e.g. 1.3.6.1.2.1.1.5.0; sysUpTime (1.3.6.1.2.1.1.3.0) when empty. Each is an "oid" source.' }),
    check({ key: 'version', label: 'SNMP version', kind: 'select', choices: ['1', '2c', '3'], hint: '2c when not set.' }),
    auth({ key: 'community', label: 'Community', kind: 'secret', hint: 'SNMP v1 and v2c ("public" when empty).' }),
    auth({ key: 'username', label: 'Username', kind: 'text', hint: 'SNMPv3.' }),
    auth({ key: 'auth_protocol', label: 'Authentication protocol', kind: 'select', choices: ['MD5', 'SHA', 'SHA-224', 'SHA-256', 'SHA-384', 'SHA-512'], hint: 'SNMPv3 (SHA when a password is set).' }),
    auth({ key: 'auth_password', label: 'Authentication password', kind: 'secret', hint: 'SNMPv3, at least 8 characters.' }),
    auth({ key: 'priv_protocol', label: 'Privacy protocol', kind: 'select', choices: ['DES', 'AES', 'AES-256B', 'AES-256R'], hint: 'SNMPv3 encryption (AES when a password is set).' }),
    auth({ key: 'priv_password', label: 'Privacy password', kind: 'secret', hint: 'SNMPv3, at least 8 characters.' }),
  ],
  NTP: [],
  UDP: [
    check({ key: 'send', label: 'Send', kind: 'text', hint: 'The datagram as text (this or Send (hex) is required); \\r \\n \\t \\\\ and \\xHH escapes. The reply is the "body" source.' }),
    check({ key: 'send_hex', label: 'Send (hex)', kind: 'text', hint: 'Or the datagram as hex digits, e.g. ff0a; the reply is also the "body_hex" source.' }),
  ],
  LDAP: [
    check({ key: 'base_dn', label: 'Search base DN', kind: 'text', hint: 'Searches under it after the bind; the count found is the "entries" source.' }),
    check({ key: 'filter', label: 'Search filter', kind: 'text', hint: '(objectClass=*) when empty.' }),
    check({ key: 'scope', label: 'Search scope', kind: 'select', choices: ['sub', 'one', 'base'] }),
    auth({ key: 'bind_dn', label: 'Bind DN', kind: 'text', hint: 'Binds anonymously when empty.' }),
    { ...PASSWORD, section: 'authentication' },
    VERIFY_TLS,
    CA_CERTIFICATE,
  ],
  // Every request needs these: in the form's open section, not folded away.
  RADIUS: [
    check({ key: 'secret', label: 'Shared secret', kind: 'secret', hint: 'Required: the client’s secret on the RADIUS server.' }),
    check({ key: 'username', label: 'Username', kind: 'text', hint: 'Required: the user the Access-Request logs in.' }),
    check({ key: 'password', label: 'Password', kind: 'secret', hint: 'Sent as PAP.' }),
    check({ key: 'nas_identifier', label: 'NAS identifier', kind: 'text', hint: '"outpost" when empty.' }),
  ],
  SIP: [],
  MQTT: [
    check({ key: 'topic', label: 'Topic', kind: 'text', hint: 'Publishes a unique message and waits for it to come back; the message is the "message" source.' }),
    check({ key: 'publish', label: 'Publish a test message', kind: 'boolean', defaultText: 'yes', hint: 'No: wait for a retained or the next message on the topic (wildcards allowed).' }),
    auth({ key: 'username', label: 'Username', kind: 'text' }),
    { ...PASSWORD, section: 'authentication' },
    VERIFY_TLS,
    CA_CERTIFICATE,
  ],
  AMQP: [
    check({ key: 'queue', label: 'Queue', kind: 'text', hint: 'Checked by a passive declare; its "message_count" and "consumer_count" are sources.' }),
    auth({ key: 'username', label: 'Username', kind: 'text', hint: 'guest when empty.' }),
    { ...PASSWORD, section: 'authentication' },
    VERIFY_TLS,
    CA_CERTIFICATE,
  ],
  NATS: [
    check({ key: 'subject', label: 'Request subject', kind: 'text', hint: 'Sends a request; the reply is the "message" source.' }),
    check({ key: 'payload', label: 'Request payload', kind: 'textarea' }),
    auth({ key: 'token', label: 'Token', kind: 'secret', hint: 'Or a username and password.' }),
    auth({ key: 'username', label: 'Username', kind: 'text' }),
    { ...PASSWORD, section: 'authentication' },
  ],
  DOCKER: [
    connection({ key: 'socket', label: 'Docker socket', kind: 'text', hint: 'On the agent’s host; /var/run/docker.sock when empty (Podman: /run/podman/podman.sock).' }),
  ],
  TRACEROUTE: [
    check({ key: 'max_hops', label: 'Maximum hops', kind: 'number', hint: '1 to 64 (default 30).' }),
    check({ key: 'packets', label: 'Echoes for loss and jitter', kind: 'number', hint: '1 to 20 (default 5).' }),
    check({ key: 'ptr_lookup', label: 'Name each hop (reverse DNS)', kind: 'boolean', defaultText: 'no' }),
  ],
  DOMAIN: [
    check({ key: 'warn_days', label: 'Warn days before expiry', kind: 'number', hint: 'YELLOW when the registration ends within this many days (default 30).' }),
    connection({ key: 'rdap_url', label: 'RDAP server', kind: 'text', hint: 'Found through IANA’s bootstrap file when empty.' }),
  ],
};

export function familyOf(checkType: string): Family | undefined {
  const type = normaliseCheckType(checkType);
  const family = type ? checkFamily(type) : undefined;
  return family === 'TLS_CERTIFICATE' ? undefined : family;
}

export function optionsOf(checkType: string): OptionSpec[] {
  const family = familyOf(checkType);
  return family === undefined ? [] : [...OPTIONS[family], ...THRESHOLDS];
}

export function endpointHintOf(checkType: string): { hint: string; example: string } | undefined {
  const type = normaliseCheckType(checkType);
  return type && ENDPOINT_HINTS[endpointFormat(type)];
}
