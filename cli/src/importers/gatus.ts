// A Gatus configuration (its config.yaml, already parsed) as an outpost.yaml: endpoints become
// services with their conditions as assertions, alerting providers notification channels,
// endpoint alerts alert rules, external endpoints heartbeats, maintenance recurring windows.
// What has no faithful equivalent goes to the report; secrets become ${ENV} references.
import type { z } from 'zod';
import type { Assertion } from '../../../shared/src/assertions.js';
import type { CheckType } from '../../../shared/src/check-types.js';
import type { ChannelEntry, HeartbeatEntry, MaintenanceEntry, OutpostFile, RuleEntry, ServiceEntry } from '../config-as-code/file-schema.js';
import { mapCondition } from './gatus-conditions.js';
import { parseGoDuration } from './go-duration.js';
import { ImportReport, variableName } from './import-report.js';

type Input<T extends z.ZodType> = z.input<T>;
export type ImportedFile = {
  services: Input<typeof ServiceEntry>[];
  heartbeats: Input<typeof HeartbeatEntry>[];
  notification_channels: Input<typeof ChannelEntry>[];
  alert_rules: Input<typeof RuleEntry>[];
  maintenance_windows: Input<typeof MaintenanceEntry>[];
} & Partial<Input<typeof OutpostFile>>;

export interface ImportResult {
  file: ImportedFile;
  report: ImportReport;
}

type Obj = Record<string, unknown>;
type Service = Input<typeof ServiceEntry> & { options: Obj; tags: string[] };

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const objectAt = (v: unknown): Obj => (isObj(v) ? v : {});
const listAt = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const textAt = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/** Sections Gatus reads that are about Gatus itself (its dashboard, storage, server), not about what it monitors. */
const IGNORED_SECTIONS: Record<string, string> = {
  ui: "Gatus's dashboard settings; Outpost's dashboard and status pages have their own",
  web: "Gatus's listening address; the control plane's is its PORT and HOST",
  storage: "Gatus's storage; Outpost keeps history in its own database",
  metrics: 'Outpost exposes /metrics on its own',
  security: "Gatus's dashboard login; Outpost has accounts and API keys",
  announcements: 'status page announcements are written in Outpost (incidents, maintenance)',
  connectivity: 'Outpost has no connectivity checker; an agent that cannot reach anything reports its own errors',
  tunneling: 'Outpost has no SSH tunnels; run an agent inside the network instead',
  remote: 'Outpost does not read other Gatus instances',
  concurrency: 'agents schedule their own checks',
  'disable-monitoring-lock': 'agents schedule their own checks',
  'skip-invalid-config-update': 'Outpost reads no configuration file at run time',
  suites: 'Outpost has MULTISTEP checks, but suites are not converted',
};
const KNOWN_SECTIONS = new Set(['endpoints', 'external-endpoints', 'alerting', 'maintenance', ...Object.keys(IGNORED_SECTIONS)]);

const DEFAULT_INTERVAL_S = 60;
const DEFAULT_TIMEOUT_S = 10;
const MIN_INTERVAL_S = 5;
const MAX_INTERVAL_S = 86_400;
const MAX_TIMEOUT_S = 120;

export function importGatus(config: unknown): ImportResult {
  const report = new ImportReport();
  const root = objectAt(config);
  const file: ImportedFile = { services: [], heartbeats: [], notification_channels: [], alert_rules: [], maintenance_windows: [] };
  for (const [key, why] of Object.entries(IGNORED_SECTIONS)) if (key in root) report.unmapped(key, `ignored: ${why}`);
  for (const key of Object.keys(root)) if (!KNOWN_SECTIONS.has(key)) report.unmapped(key, 'ignored: not a section this importer knows');

  const alerting = importProviders(objectAt(root.alerting), report);
  file.notification_channels.push(...alerting.channels.values());
  const names = new UniqueNames();

  for (const [index, raw] of listAt(root.endpoints).entries()) {
    const endpoint = objectAt(raw);
    const name = names.of(endpoint, `endpoint ${index + 1}`, report);
    const imported = importEndpoint(endpoint, name, report);
    if (!imported) continue;
    file.services.push(imported.service, ...imported.extra);
    file.alert_rules.push(...importAlerts(endpoint, name, alerting, report));
    file.maintenance_windows.push(...endpointWindows(endpoint, name, report));
  }
  for (const [index, raw] of listAt(root['external-endpoints']).entries()) {
    const external = objectAt(raw);
    const name = names.of(external, `external endpoint ${index + 1}`, report);
    const heartbeat = importExternalEndpoint(external, name, report);
    if (!heartbeat) continue;
    file.heartbeats.push(heartbeat);
    file.alert_rules.push(...importAlerts(external, name, alerting, report));
  }
  if (root.maintenance !== undefined) {
    const window = maintenanceWindow(objectAt(root.maintenance), 'maintenance', [], 'maintenance', report);
    if (window) file.maintenance_windows.push(window);
  }
  return { file, report };
}

/** Outpost names are unique in an organization; Gatus's key is group and name. */
class UniqueNames {
  private readonly taken = new Set<string>();

  of(entry: Obj, fallback: string, report: ImportReport): string {
    const base = textAt(entry.name) ?? fallback;
    const group = textAt(entry.group);
    let name = base;
    if (this.taken.has(name) && group) name = `${group}/${base}`;
    for (let n = 2; this.taken.has(name); n++) name = `${base} (${n})`;
    if (name !== base) report.unmapped(`endpoint ${base}`, `the name is taken by another endpoint; imported as "${name}"`);
    this.taken.add(name);
    return name;
  }
}

// ---------------------------------------------------------------- endpoints

interface Target {
  type: CheckType;
  endpoint: string;
}

interface ImportedEndpoint {
  service: Service;
  /** A DOMAIN service for [DOMAIN_EXPIRATION]. */
  extra: Service[];
}

function importEndpoint(endpoint: Obj, name: string, report: ImportReport): ImportedEndpoint | undefined {
  const where = `endpoint ${name}`;
  const target = targetOf(endpoint, name, report);
  if (!target) return undefined;
  const client = objectAt(endpoint.client);
  const service: Service = {
    name,
    check_type: target.type,
    endpoint: target.endpoint,
    check_interval_seconds: intervalSeconds(endpoint.interval, where, report),
    timeout_seconds: timeoutSeconds(client.timeout, where, report),
    tags: textAt(endpoint.group) ? [textAt(endpoint.group)!] : [],
    options: {},
    ...(endpoint.enabled === false ? { paused: true } : {}),
  };
  if (target.type === 'HTTP' || target.type === 'HTTPS') httpOptions(endpoint, client, service, report);
  else requestOptions(endpoint, target.type, service, report);
  if (target.type === 'SSH') sshOptions(objectAt(endpoint.ssh), service, report);
  if (target.type === 'DNS') dnsOptions(endpoint, service, report);
  const extra = conditions(endpoint, service, report);
  if (target.type === 'UDP' && service.options.send === undefined) {
    report.unmapped(where, 'not imported: an Outpost UDP check sends a datagram, and this endpoint has no body to send');
    return undefined;
  }
  reportUnknownKeys(endpoint, ENDPOINT_KEYS, where, report);
  if (endpoint.ui !== undefined) report.unmapped(where, "ui: ignored (Gatus's dashboard display)");
  if (endpoint['extra-labels'] !== undefined) report.unmapped(where, 'extra-labels: ignored (Gatus metrics labels); group and tags carry the grouping');
  return { service, extra };
}

/** What importEndpoint reads or reports by itself; any other key is reported as not imported. */
const ENDPOINT_KEYS = ['name', 'group', 'url', 'method', 'conditions', 'interval', 'graphql', 'body', 'headers', 'dns', 'ssh', 'alerts', 'maintenance-windows', 'client', 'ui', 'extra-labels', 'enabled'];

function reportUnknownKeys(entry: Obj, known: readonly string[], where: string, report: ImportReport): void {
  for (const key of Object.keys(entry)) if (!known.includes(key)) report.unmapped(where, `${key}: not imported`);
}

const SCHEMES: Record<string, CheckType> = {
  http: 'HTTP',
  https: 'HTTPS',
  tcp: 'TCP',
  udp: 'UDP',
  icmp: 'ICMP',
  ssh: 'SSH',
  starttls: 'SMTP',
  tls: 'TCP',
  ws: 'WEBSOCKET',
  wss: 'WEBSOCKET',
  grpc: 'GRPC',
  grpcs: 'GRPC',
};
/** Ports Gatus fills in itself when a URL gives none. */
const DEFAULT_PORTS: Partial<Record<string, number>> = { ssh: 22 };
/** scheme://[user@]host[:port]: a regular expression, since the host or port may be an ${ENV} reference. */
const URL_PARTS = /^([a-z0-9+]+):\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^:/?#]+)(?::([^/?#]+))?/i;

function targetOf(endpoint: Obj, name: string, report: ImportReport): Target | undefined {
  const where = `endpoint ${name}`;
  const url = textAt(endpoint.url);
  if (endpoint.dns !== undefined) {
    const queryName = textAt(objectAt(endpoint.dns)['query-name']);
    if (!queryName) return skip(report, where, 'a DNS endpoint without dns.query-name');
    return { type: 'DNS', endpoint: report.text(queryName) };
  }
  if (!url) return skip(report, where, 'it has no url');
  const parts = URL_PARTS.exec(url);
  const scheme = parts?.[1]!.toLowerCase();
  const type = scheme ? SCHEMES[scheme] : undefined;
  if (!parts || !type) return skip(report, where, `${scheme ?? 'this'}:// endpoints have no Outpost check type (${url.split(':')[0]})`);
  if (type === 'HTTP' || type === 'HTTPS' || type === 'WEBSOCKET') return { type, endpoint: httpUrl(url, name, report) };
  const host = report.text(parts[2]!);
  if (type === 'ICMP') return { type, endpoint: host.replace(/^\[(.*)\]$/, '$1') };
  const port = parts[3] ?? DEFAULT_PORTS[scheme!];
  if (port === undefined) return skip(report, where, `the ${type} check needs a port in the url`);
  if (scheme === 'tls') report.unmapped(where, 'tls:// imported as a TCP connect check: it does not verify the TLS handshake; watch the certificate with an SSL certificate watch (dashboard, or POST /api/v1/ssl-certificates)');
  if (scheme === 'starttls') report.unmapped(where, 'starttls:// imported as an SMTP check (greeting and EHLO): it does not upgrade to TLS nor read the certificate');
  if (scheme === 'grpcs') report.unmapped(where, 'grpcs:// imported as a gRPC check with tls: true');
  return { type, endpoint: `${host}:${report.text(String(port))}` };
}

function skip(report: ImportReport, where: string, why: string): undefined {
  report.unmapped(where, `not imported: ${why}`);
  return undefined;
}

/** The URL with a password in it as a reference; ${ENV} references kept. */
function httpUrl(url: string, name: string, report: ImportReport): string {
  const withCredentials = /^([a-z]+:\/\/[^:@/]+:)([^@/]+)(@.*)$/i.exec(url);
  if (!withCredentials) return report.text(url);
  const password = report.secret(variableName(name, 'url password'), withCredentials[2]!, `the password in the url of endpoint ${name}`);
  return `${report.text(withCredentials[1]!)}${password}${report.text(withCredentials[3]!)}`;
}

function intervalSeconds(value: unknown, where: string, report: ImportReport): number {
  if (value === undefined) return DEFAULT_INTERVAL_S;
  const ms = typeof value === 'string' ? parseGoDuration(value) : undefined;
  if (ms === undefined || ms <= 0) {
    report.unmapped(where, `interval ${String(value)} is not a duration; ${DEFAULT_INTERVAL_S}s used`);
    return DEFAULT_INTERVAL_S;
  }
  const seconds = Math.round(ms / 1000);
  const bounded = Math.min(MAX_INTERVAL_S, Math.max(MIN_INTERVAL_S, seconds));
  if (bounded !== seconds || seconds * 1000 !== ms) report.unmapped(where, `interval ${value} is ${bounded}s in Outpost (whole seconds, ${MIN_INTERVAL_S}s to ${MAX_INTERVAL_S}s)`);
  return bounded;
}

function timeoutSeconds(value: unknown, where: string, report: ImportReport): number {
  if (value === undefined) return DEFAULT_TIMEOUT_S;
  const ms = typeof value === 'string' ? parseGoDuration(value) : undefined;
  if (ms === undefined || ms <= 0) {
    report.unmapped(where, `client.timeout ${String(value)} is not a duration; ${DEFAULT_TIMEOUT_S}s used`);
    return DEFAULT_TIMEOUT_S;
  }
  const seconds = Math.min(MAX_TIMEOUT_S, Math.max(1, Math.ceil(ms / 1000)));
  if (seconds * 1000 !== ms) report.unmapped(where, `client.timeout ${value} is ${seconds}s in Outpost (whole seconds, 1s to ${MAX_TIMEOUT_S}s)`);
  return seconds;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Header names whose values are credentials. */
const SECRET_HEADER = /authorization|token|secret|api[-_]?key|password|cookie|session/i;

function httpOptions(endpoint: Obj, client: Obj, service: Service, report: ImportReport): void {
  const where = `endpoint ${service.name}`;
  const o = service.options;
  const method = textAt(endpoint.method)?.toUpperCase();
  if (method && method !== 'GET') {
    if (METHODS.has(method)) o.method = method;
    else report.unmapped(where, `method ${method} is not one Outpost sends`);
  }
  const body = textAt(endpoint.body);
  if (body !== undefined) {
    o.body = report.text(endpoint.graphql === true ? JSON.stringify({ query: body }) : body);
    if (/\[(ENDPOINT_NAME|ENDPOINT_GROUP|ENDPOINT_URL|LOCAL_ADDRESS|RANDOM_STRING_\d+)\]/.test(body)) report.unmapped(where, 'body: Gatus placeholders ([ENDPOINT_NAME], [RANDOM_STRING_N]...) are sent as written');
  }
  const headers = objectAt(endpoint.headers);
  const sent: Record<string, string> = {};
  for (const [header, raw] of Object.entries(headers)) {
    const value = textAt(raw) ?? '';
    const bearer = /^bearer\s+(.+)$/i.exec(value);
    if (header.toLowerCase() === 'authorization' && bearer) o.bearer_token = report.secret(variableName(service.name, 'bearer token'), bearer[1]!, `the bearer token of endpoint ${service.name}`);
    else if (SECRET_HEADER.test(header)) sent[header] = report.secret(variableName(service.name, header), value, `the ${header} header of endpoint ${service.name}`);
    else sent[header] = report.text(value);
  }
  if (Object.keys(sent).length > 0) o.headers = sent;
  if (client.insecure === true) o.verify_tls = false;
  if (client['ignore-redirect'] === true) o.follow_redirects = false;
  const proxy = textAt(client['proxy-url']);
  if (proxy) {
    if (/^http:\/\//i.test(proxy) && !/@/.test(proxy)) o.proxy = proxy;
    else report.unmapped(where, 'client.proxy-url: Outpost reaches proxies in plain http://host:port; set options.proxy by hand');
  }
  const oauth2 = objectAt(client.oauth2);
  if (client.oauth2 !== undefined) {
    o.oauth2 = {
      token_url: report.text(textAt(oauth2['token-url']) ?? ''),
      client_id: report.text(textAt(oauth2['client-id']) ?? ''),
      ...(textAt(oauth2['client-secret']) ? { client_secret: report.secret(variableName(service.name, 'oauth2 client secret'), textAt(oauth2['client-secret'])!, `the OAuth2 client secret of endpoint ${service.name}`) } : {}),
      ...(listAt(oauth2.scopes).length > 0 ? { scopes: listAt(oauth2.scopes).map(String) } : {}),
    };
  }
  clientLeftovers(client, where, report);
}

/** Client settings with no Outpost option, each reported. */
function clientLeftovers(client: Obj, where: string, report: ImportReport): void {
  const why: Record<string, string> = {
    'dns-resolver': 'agents resolve names with their host resolver',
    'identity-aware-proxy': 'Outpost has no Google IAP client; use oauth2 or a bearer token',
    tls: 'client certificates are options.client_certificate and client_key (PEM text, not files): set them by hand',
    network: 'agents choose IPv4 or IPv6 as their host resolves',
    tunnel: 'Outpost has no SSH tunnels; run an agent inside the network',
    'store-cookies': 'each check starts without cookies',
  };
  for (const [key, reason] of Object.entries(why)) if (client[key] !== undefined) report.unmapped(where, `client.${key}: ${reason}`);
}

/** Non-HTTP endpoints: Gatus's body is what TCP, UDP and TLS send. */
function requestOptions(endpoint: Obj, type: CheckType, service: Service, report: ImportReport): void {
  const where = `endpoint ${service.name}`;
  const body = textAt(endpoint.body);
  if (body !== undefined) {
    if (type === 'TCP' || type === 'UDP') service.options.send = escapeSend(report.text(body));
    else report.unmapped(where, `body: the ${type} check sends nothing of its own`);
  }
  for (const key of ['headers', 'method', 'graphql'] as const) if (endpoint[key] !== undefined) report.unmapped(where, `${key}: not used by the ${type} check (nor by Gatus's)`);
  if (textAt(endpoint.url)?.startsWith('grpcs://')) service.options.tls = true;
  const client = objectAt(endpoint.client);
  if (client.insecure === true && type === 'GRPC') service.options.verify_tls = false;
  clientLeftovers(client, where, report);
}

/** Outpost's send reads \r, \n, \t, \\ and \xHH: a backslash and control characters are written as escapes. */
function escapeSend(text: string): string {
  return text.replace(/[\\\r\n\t]|[\x00-\x1f]/g, (c) => {
    if (c === '\\') return '\\\\';
    if (c === '\r') return '\\r';
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

function sshOptions(ssh: Obj, service: Service, report: ImportReport): void {
  const username = textAt(ssh.username);
  if (username) service.options.username = report.text(username);
  const password = textAt(ssh.password);
  if (password) service.options.password = report.secret(variableName(service.name, 'ssh password'), password, `the SSH password of endpoint ${service.name}`);
  const key = textAt(ssh['private-key']);
  if (key) service.options.private_key = report.secret(variableName(service.name, 'ssh private key'), key, `the SSH private key (PEM) of endpoint ${service.name}`);
}

const DNS_TYPES = new Set(['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SOA', 'SRV', 'PTR', 'CAA']);

function dnsOptions(endpoint: Obj, service: Service, report: ImportReport): void {
  const where = `endpoint ${service.name}`;
  const queryType = textAt(objectAt(endpoint.dns)['query-type'])?.toUpperCase();
  if (queryType && DNS_TYPES.has(queryType)) service.options.dns_record_type = queryType;
  else if (queryType) report.unmapped(where, `dns.query-type ${queryType}: Outpost asks for ${[...DNS_TYPES].join(', ')}; A used`);
  // Gatus's url is the resolver: an address, or proto://address:port.
  const resolver = textAt(endpoint.url)?.replace(/^(udp|tcp):\/\//i, '');
  if (resolver) service.options.resolver = report.text(resolver);
  if (/^tcp:\/\//i.test(textAt(endpoint.url) ?? '')) report.unmapped(where, 'the resolver is asked over UDP, not TCP');
}

function conditions(endpoint: Obj, service: Service, report: ImportReport): Service[] {
  const where = `endpoint ${service.name}`;
  const type = service.check_type as CheckType;
  const assertions: Assertion[] = [];
  const extra: Service[] = [];
  for (const raw of listAt(endpoint.conditions)) {
    const condition = String(raw);
    const outcome = mapCondition(condition, type);
    if (outcome.kind === 'assertions') {
      assertions.push(...outcome.assertions);
      if (outcome.note) report.unmapped(where, `"${condition}": ${outcome.note}`);
    } else if (outcome.kind === 'unmapped') report.unmapped(where, `condition "${condition}" not mapped: ${outcome.why}`);
    else if (outcome.kind === 'domain-expiration') {
      const domain = domainService(service, outcome.comparison, outcome.days);
      if (domain) {
        extra.push(domain);
        report.unmapped(where, `condition "${condition}" is checked by a DOMAIN service of its own, "${domain.name}"`);
      } else report.unmapped(where, `condition "${condition}" not mapped: the endpoint names no domain`);
    }
  }
  // Gatus judges an HTTP answer by its conditions alone: with none on [STATUS], any status
  // passes. An assertion on the status lifts Outpost's default 200-399 rule the same way.
  const http = type === 'HTTP' || type === 'HTTPS';
  if (http && !assertions.some((a) => a.source === 'status')) assertions.unshift({ source: 'status', comparison: 'exists' });
  if (assertions.length > 0) service.options.assertions = assertions;
  return extra;
}

function domainService(service: Service, comparison: Assertion['comparison'], days: number): Service | undefined {
  const host = /^[a-z]+:\/\/(?:[^@/]*@)?([^:/?#]+)/i.exec(service.endpoint)?.[1] ?? service.endpoint.split(':')[0]!;
  if (!host || /^[\d.]+$/.test(host) || host.includes('${') || !host.includes('.')) return undefined;
  return {
    name: `${service.name} (domain)`,
    check_type: 'DOMAIN',
    endpoint: host,
    check_interval_seconds: Math.max(service.check_interval_seconds ?? DEFAULT_INTERVAL_S, 3600),
    timeout_seconds: service.timeout_seconds ?? DEFAULT_TIMEOUT_S,
    tags: [...service.tags],
    options: { assertions: [{ source: 'days_remaining', comparison, target: days }] },
    ...(service.paused ? { paused: true } : {}),
  };
}

// ---------------------------------------------------------------- alerting

interface Provider {
  channel: Input<typeof ChannelEntry>;
  /** The provider's default-alert, which an endpoint's alert of its type starts from. */
  defaults: Obj;
}

interface Alerting {
  providers: Map<string, Provider>;
  channels: Map<string, Input<typeof ChannelEntry>>;
}

const CHAT_PROVIDERS: Record<string, string> = {
  slack: 'slack',
  discord: 'discord',
  teams: 'teams',
  'teams-workflows': 'teams',
  mattermost: 'mattermost',
  googlechat: 'google_chat',
};
const SMS_PROVIDERS = new Set(['twilio', 'messagebird', 'plivo', 'vonage']);
/** The keys channelOf reads (or reports) per provider; the others are reported as not imported. */
const PROVIDER_KEYS: Record<string, readonly string[]> = {
  ...Object.fromEntries(Object.keys(CHAT_PROVIDERS).map((p) => [p, ['webhook-url']])),
  telegram: ['token', 'id', 'api-url'],
  ntfy: ['url', 'topic', 'token'],
  gotify: ['server-url', 'token'],
  pushover: ['application-token', 'user-key'],
  pagerduty: ['integration-key'],
  opsgenie: ['api-key'],
  email: ['from', 'username', 'password', 'host', 'port', 'to'],
  custom: ['url', 'method', 'body', 'headers'],
  ...Object.fromEntries([...SMS_PROVIDERS].map((p) => [p, ['to', 'from', 'account-sid', 'auth-token', 'access-key', 'auth-id', 'api-key', 'api-secret', 'originator']])),
};

function importProviders(alerting: Obj, report: ImportReport): Alerting {
  const providers = new Map<string, Provider>();
  for (const [type, raw] of Object.entries(alerting)) {
    const config = objectAt(raw);
    const where = `alerting.${type}`;
    const channel = channelOf(type, config, report);
    if (!channel) continue;
    reportUnknownKeys(config, [...(PROVIDER_KEYS[type] ?? []), 'default-alert', 'overrides'], where, report);
    providers.set(type, { channel, defaults: objectAt(config['default-alert']) });
    if (config.overrides !== undefined) report.unmapped(where, 'overrides: per-group provider settings are not imported; make a channel per group and a rule per tag');
  }
  return { providers, channels: new Map([...providers].map(([type, p]) => [type, p.channel])) };
}

function channelOf(type: string, config: Obj, report: ImportReport): Input<typeof ChannelEntry> | undefined {
  const where = `alerting.${type}`;
  const secret = (key: string, what = key) => report.secret(variableName(type, key), textAt(config[key]) ?? '', `the ${what} of ${where}`);
  const chat = CHAT_PROVIDERS[type];
  if (chat) {
    if (!textAt(config['webhook-url'])) return skip(report, where, 'no webhook-url');
    // A chat webhook URL carries its token: it is a secret.
    return { name: type, type: 'chat', config: { provider: chat, webhook_url: secret('webhook-url') } } as Input<typeof ChannelEntry>;
  }
  switch (type) {
    case 'telegram':
      return { name: type, type: 'chat', config: { provider: 'telegram', bot_token: secret('token', 'bot token'), chat_id: report.text(textAt(config.id) ?? ''), ...(textAt(config['api-url']) ? { api_url: report.text(textAt(config['api-url'])!) } : {}) } };
    case 'ntfy':
      return {
        name: type,
        type: 'chat',
        config: { provider: 'ntfy', server_url: report.text(textAt(config.url) ?? 'https://ntfy.sh'), topic: report.text(textAt(config.topic) ?? ''), ...(textAt(config.token) ? { token: secret('token') } : {}) },
      };
    case 'gotify':
      return { name: type, type: 'chat', config: { provider: 'gotify', server_url: report.text(textAt(config['server-url']) ?? ''), token: secret('token') } };
    case 'pushover':
      return { name: type, type: 'chat', config: { provider: 'pushover', token: secret('application-token', 'application token'), user: secret('user-key', 'user key') } };
    case 'pagerduty':
      return { name: type, type: 'pager', config: { provider: 'pagerduty', integration_key: secret('integration-key', 'integration key') } };
    case 'opsgenie':
      return { name: type, type: 'pager', config: { provider: 'opsgenie', api_key: secret('api-key', 'API key') } };
    case 'email':
      report.unmapped(where, 'from, host, port, username and password are not imported: Outpost sends e-mail through its own SMTP settings (SMTP_* of the control plane)');
      return { name: type, type: 'email', config: { to: report.text(textAt(config.to) ?? '') } };
    case 'custom':
      return customWebhook(config, report);
  }
  if (SMS_PROVIDERS.has(type) && textAt(config.to)) {
    report.unmapped(where, `the ${type} credentials are not imported: Outpost sends SMS through its own provider settings`);
    return { name: type, type: 'sms', config: { to: report.text(textAt(config.to)!) } };
  }
  return skip(report, where, `Outpost has no ${type} channel; its alerts are reported below`);
}

function customWebhook(config: Obj, report: ImportReport): Input<typeof ChannelEntry> | undefined {
  const where = 'alerting.custom';
  const url = textAt(config.url);
  if (!url) return skip(report, where, 'no url');
  const method = textAt(config.method)?.toUpperCase() ?? 'GET';
  if (method !== 'POST' && method !== 'PUT') report.unmapped(where, `method ${method}: Outpost's webhook sends POST or PUT; POST used`);
  if (config.body !== undefined) report.unmapped(where, "body: Gatus's [ENDPOINT_NAME]-style placeholders differ from Outpost's Liquid template; Outpost sends its JSON payload (README \"Message templates\" to shape it)");
  if (/\[[A-Z_]+\]/.test(url)) report.unmapped(where, 'url: Gatus placeholders in it are sent as written');
  const headers: Record<string, string> = {};
  for (const [header, raw] of Object.entries(objectAt(config.headers))) {
    const value = textAt(raw) ?? '';
    headers[header] = SECRET_HEADER.test(header) ? report.secret(variableName('custom', header), value, `the ${header} header of ${where}`) : report.text(value);
  }
  // The URL may hold a token (a query parameter, a path): kept out of the file.
  const webhookUrl = report.secret('CUSTOM_WEBHOOK_URL', url, `the url of ${where}`);
  return { name: 'custom', type: 'webhook', config: { url: webhookUrl, ...(method === 'PUT' ? { method: 'PUT' } : { method: 'POST' }), ...(Object.keys(headers).length > 0 ? { headers } : {}) } };
}

const MAX_RECOVERY = 20;
const MAX_FAILURES = 1000;

function importAlerts(entry: Obj, serviceName: string, alerting: Alerting, report: ImportReport): Input<typeof RuleEntry>[] {
  const rules: Input<typeof RuleEntry>[] = [];
  const where = `endpoint ${serviceName}`;
  for (const raw of listAt(entry.alerts)) {
    const own = objectAt(raw);
    const type = textAt(own.type) ?? '?';
    const provider = alerting.providers.get(type);
    if (!provider) {
      report.unmapped(where, `alert of type ${type} not imported: no ${type} channel (the provider is missing or has no Outpost equivalent)`);
      continue;
    }
    // An endpoint's alert takes what it leaves unset from its provider's default-alert.
    const alert = { ...provider.defaults, ...own };
    const failures = Math.min(MAX_FAILURES, Math.max(1, Number(alert['failure-threshold'] ?? 3)));
    const recovery = Math.min(MAX_RECOVERY, Math.max(1, Number(alert['success-threshold'] ?? 2)));
    if (Number(alert['success-threshold'] ?? 2) > MAX_RECOVERY) report.unmapped(where, `success-threshold ${String(alert['success-threshold'])} is ${MAX_RECOVERY} in Outpost (its most)`);
    const reminder = typeof alert['minimum-reminder-interval'] === 'string' ? parseGoDuration(alert['minimum-reminder-interval']) : undefined;
    rules.push({
      name: `${serviceName}: ${type}`,
      service: serviceName,
      severity: 'critical',
      ...(alert.enabled === false ? { enabled: false } : {}),
      consecutive_failures: failures,
      recovery_threshold: recovery,
      ...(reminder ? { repeat_interval_minutes: Math.max(1, Math.round(reminder / 60_000)) } : {}),
      channels: [provider.channel.name],
    });
    if (alert['send-on-resolved'] !== true) report.unmapped(where, `${type} alert: send-on-resolved is off in Gatus; Outpost also tells the channel when the alert resolves`);
    if (alert.description !== undefined) report.unmapped(where, `${type} alert: description not imported (Outpost's message names the service and what failed)`);
    if (alert['provider-override'] !== undefined) report.unmapped(where, `${type} alert: provider-override not imported; make a channel of its own for it`);
  }
  return rules;
}

// ---------------------------------------------------------------- external endpoints

function importExternalEndpoint(external: Obj, name: string, report: ImportReport): Input<typeof HeartbeatEntry> | undefined {
  const where = `external endpoint ${name}`;
  const interval = textAt(objectAt(external.heartbeat).interval);
  const ms = interval ? parseGoDuration(interval) : undefined;
  if (!ms) return skip(report, where, 'without heartbeat.interval it expects no push at any time, and an Outpost heartbeat needs an interval');
  report.unmapped(where, 'pushers must ping the heartbeat URL Outpost gives (its token replaces the Gatus token); a push with success=false is a ping to .../fail');
  if (external.enabled === false) report.unmapped(where, 'enabled: false: heartbeats cannot be paused in outpost.yaml; imported enabled');
  // Gatus fails the endpoint as soon as an interval passes without a push: no grace.
  return { name, interval_seconds: Math.max(1, Math.round(ms / 1000)), grace_seconds: 0 };
}

// ---------------------------------------------------------------- maintenance

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

function endpointWindows(endpoint: Obj, serviceName: string, report: ImportReport): Input<typeof MaintenanceEntry>[] {
  return listAt(endpoint['maintenance-windows']).flatMap((raw, i) => {
    const window = maintenanceWindow(objectAt(raw), `${serviceName} maintenance${i > 0 ? ` ${i + 1}` : ''}`, [serviceName], `endpoint ${serviceName}`, report);
    return window ? [window] : [];
  });
}

/** Gatus's daily (or some weekdays') window as a cron schedule and a duration. */
function maintenanceWindow(m: Obj, name: string, services: string[], where: string, report: ImportReport): Input<typeof MaintenanceEntry> | undefined {
  if (m.enabled === false) return skip(report, where, 'maintenance: disabled');
  const start = /^(\d{1,2}):(\d{2})$/.exec(textAt(m.start) ?? '');
  const ms = typeof m.duration === 'string' ? parseGoDuration(m.duration) : undefined;
  if (!start || !ms) return skip(report, where, 'maintenance: start (hh:mm) and duration are required');
  const days = listAt(m.every).map((d) => WEEKDAYS.indexOf(String(d).toLowerCase()));
  if (days.includes(-1)) return skip(report, where, `maintenance: every lists a day that is not a weekday (${listAt(m.every).join(', ')})`);
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes * 60_000 !== ms) report.unmapped(where, `maintenance duration ${m.duration} is ${minutes} minutes in Outpost`);
  return {
    name,
    schedule: `${Number(start[2])} ${Number(start[1])} * * ${days.length > 0 ? days.join(',') : '*'}`,
    timezone: textAt(m.timezone) ?? 'UTC',
    duration_minutes: minutes,
    services,
  };
}
