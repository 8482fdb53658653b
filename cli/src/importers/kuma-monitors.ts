// Each Uptime Kuma monitor type as the Outpost check that does the same, or a report line
// saying why there is none. HTTP-like types are in kuma-http.ts.
import { isIP } from 'node:net';
import type { Assertion } from '../../../shared/src/assertions.js';
import type { CheckType } from '../../../shared/src/check-types.js';
import { isTrue, numberAt, parsedJson, text } from './kuma-data.js';
import { parseConnection } from './kuma-connection.js';
import { httpService } from './kuma-http.js';
import { jsonQueryAssertion } from './kuma-json-query.js';
import { baseService, intervalOf, skip, type Mapped, type MonitorContext, type Service } from './kuma-service.js';
import { variableName } from './import-report.js';

/** Types with no Outpost check, and why. */
const WITHOUT_EQUIVALENT: Record<string, string> = {
  sqlserver: 'Outpost has no SQL Server check (a TCP service on its port would only show that it listens)',
  steam: 'Outpost has no Steam game-server query',
  gamedig: 'Outpost has no game-server query (GameDig)',
  'tailscale-ping': 'Outpost has no Tailscale check: run an agent inside the tailnet with an ICMP service',
  'kafka-producer': 'Outpost has no Kafka check',
  rabbitmq: "Uptime Kuma asks RabbitMQ's management API; Outpost's AMQP check connects to the broker itself: add one by hand",
  manual: 'a manual monitor runs no check: its status is set by hand',
  globalping: 'Outpost has no Globalping probes: run agents where you need vantage points',
  pm2: 'Outpost has no PM2 check',
  oracledb: 'Outpost has no Oracle Database check',
  'system-service': 'Outpost has no systemd or Windows service check',
};

type Mapper = (ctx: MonitorContext) => Mapped;
const service = (s: Service | undefined): Mapped => (s ? { service: s } : undefined);

const MAPPERS: Record<string, Mapper> = {
  http: (ctx) => service(httpService(ctx)),
  keyword: (ctx) => service(httpService(ctx)),
  'json-query': (ctx) => service(httpService(ctx)),
  'real-browser': (ctx) => service(httpService(ctx)),
  port: (ctx) => service(hostPort(ctx, 'TCP')),
  ping: (ctx) => service(ping(ctx)),
  dns: (ctx) => service(dns(ctx)),
  docker: (ctx) => service(docker(ctx)),
  push: push,
  mqtt: (ctx) => service(mqtt(ctx)),
  radius: (ctx) => service(radius(ctx)),
  snmp: (ctx) => service(snmp(ctx)),
  smtp: (ctx) => service(smtp(ctx)),
  ntp: (ctx) => service(ntp(ctx)),
  'websocket-upgrade': (ctx) => service(websocket(ctx)),
  'grpc-keyword': (ctx) => service(grpc(ctx)),
  postgres: (ctx) => service(database(ctx, 'POSTGRES')),
  mysql: (ctx) => service(database(ctx, 'MYSQL')),
  mongodb: (ctx) => service(database(ctx, 'MONGODB')),
  redis: (ctx) => service(database(ctx, 'REDIS')),
};

export function mapMonitor(ctx: MonitorContext): Mapped {
  const type = ctx.monitor.type;
  const mapper = MAPPERS[type];
  if (mapper) return mapper(ctx);
  return skip(ctx.report, ctx.where, WITHOUT_EQUIVALENT[type] ?? `Outpost has no check like Uptime Kuma's ${type} monitors`);
}

function hostPort(ctx: MonitorContext, type: CheckType, defaultPort?: number): Service | undefined {
  const host = text(ctx.monitor.hostname)?.trim();
  const port = numberAt(ctx.monitor.port) ?? defaultPort;
  if (!host || port === undefined) return skip(ctx.report, ctx.where, 'it has no host name and port');
  return baseService(ctx, type, `${isIP(host) === 6 ? `[${host}]` : host}:${port}`);
}

function ping(ctx: MonitorContext): Service | undefined {
  const host = text(ctx.monitor.hostname)?.trim();
  if (!host) return skip(ctx.report, ctx.where, 'it has no host name');
  const size = numberAt(ctx.monitor.packet_size) ?? 56;
  if (size !== 56) ctx.report.unmapped(ctx.where, `packet size ${size}: the agent sends its own echo size`);
  return baseService(ctx, 'ICMP', host);
}

const DNS_TYPES = new Set(['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SOA', 'SRV', 'PTR', 'CAA']);
/** Kuma 2.x's DNS condition operators (on each record; any record may pass) as comparisons. */
const RECORD_OPERATORS: Record<string, (v: string) => Pick<Assertion, 'comparison' | 'target'>> = {
  equals: (v) => ({ comparison: 'equals', target: v }),
  not_equals: (v) => ({ comparison: 'not_equals', target: v }),
  contains: (v) => ({ comparison: 'contains', target: v }),
  not_contains: (v) => ({ comparison: 'not_contains', target: v }),
  starts_with: (v) => ({ comparison: 'matches', target: `^${escapeRe2(v)}` }),
  ends_with: (v) => ({ comparison: 'matches', target: `${escapeRe2(v)}$` }),
};

function dns(ctx: MonitorContext): Service | undefined {
  const { monitor: m, where, report } = ctx;
  const host = text(m.hostname)?.trim();
  if (!host) return skip(report, where, 'it has no host name');
  const s = baseService(ctx, 'DNS', host);
  const type = (text(m.dns_resolve_type) ?? 'A').toUpperCase();
  if (DNS_TYPES.has(type)) s.options.dns_record_type = type;
  else report.unmapped(where, `record type ${type}: Outpost asks for ${[...DNS_TYPES].join(', ')}; A used`);
  // 1.x: one resolver; 2.x: a comma-separated list, or none for the system's.
  const [resolver, ...others] = (text(m.dns_resolve_server) ?? '').split(',').map((r) => r.trim()).filter(Boolean);
  const port = numberAt(m.port) ?? 53;
  if (resolver && isIP(resolver)) s.options.resolver = port === 53 ? resolver : `${isIP(resolver) === 6 ? `[${resolver}]` : resolver}:${port}`;
  else if (resolver) report.unmapped(where, `resolver ${resolver} is not an IP address; the agent's resolver is asked`);
  if (others.length > 0) report.unmapped(where, `resolvers ${others.join(', ')}: Outpost asks one resolver (${resolver})`);
  const conditions = dnsConditions(ctx, type);
  if (conditions.length > 0) s.options.assertions = conditions;
  return s;
}

/** Kuma 2.x's conditions on a record, when they are one comparison (Outpost's answers hold MX as "priority host"). */
function dnsConditions({ monitor: m, where, report }: MonitorContext, type: string): Assertion[] {
  const conditions = parsedJson(m.conditions);
  if (!Array.isArray(conditions) || conditions.length === 0) return [];
  const [only] = conditions as { type?: string; variable?: string; operator?: string; value?: string }[];
  const operator = only && conditions.length === 1 && only.type === 'expression' && only.variable === 'record' ? RECORD_OPERATORS[only.operator ?? ''] : undefined;
  if (!operator || ['MX', 'SOA', 'SRV', 'CAA'].includes(type)) {
    report.unmapped(where, `conditions ${JSON.stringify(conditions)} not mapped: Outpost maps one condition on the record of an A, AAAA, CNAME, NS, PTR or TXT query; add an answers assertion by hand`);
    return [];
  }
  return [{ source: 'answers', ...operator(String(only!.value ?? '')) }];
}

function docker(ctx: MonitorContext): Service | undefined {
  const { monitor: m, where, data, report } = ctx;
  const container = text(m.docker_container)?.trim();
  if (!container) return skip(report, where, 'it names no container');
  const s = baseService(ctx, 'DOCKER', container);
  const hostId = numberAt(m.docker_host);
  const host = hostId === undefined ? undefined : data.dockerHosts.get(hostId);
  const daemon = text(host?.docker_daemon);
  if (host && text(host.docker_type) === 'socket' && daemon?.startsWith('/')) s.options.socket = daemon;
  else if (host) report.unmapped(where, `Docker host ${text(host.name)} (${daemon}) is reached over TCP by Uptime Kuma; Outpost's agent inspects its own host's socket: run an agent there`);
  else if (hostId !== undefined) report.unmapped(where, "its Docker host is not in a JSON backup; the agent's own socket is used");
  return s;
}

function push({ monitor: m, name, where, report }: MonitorContext): Mapped {
  // Kuma marks a push monitor DOWN once an interval passes without a push, after its retries.
  const retries = numberAt(m.maxretries) ?? 0;
  const grace = retries > 0 ? retries * (numberAt(m.retry_interval) ?? intervalOf(m)) : 0;
  report.unmapped(where, 'imported as a heartbeat: the pusher must call the ping URL Outpost gives (its token replaces the Kuma push token); a push with status=down is a ping to .../fail');
  if (!isTrue(m.active) && m.active !== undefined) report.unmapped(where, 'paused: heartbeats cannot be paused in outpost.yaml; imported active');
  return { heartbeat: { name, interval_seconds: Math.max(1, Math.round(intervalOf(m))), grace_seconds: Math.round(grace) } };
}

function mqtt(ctx: MonitorContext): Service | undefined {
  const { monitor: m, name, where, data, report } = ctx;
  let host = text(m.hostname)?.trim();
  if (!host) return skip(report, where, 'it has no host name');
  if (!/^[a-z]+:\/\//i.test(host)) host = `mqtt://${host}`;
  if (!/^mqtts?:\/\//i.test(host)) return skip(report, where, `${host.split(':')[0]}:// (MQTT over WebSocket): Outpost's MQTT check speaks mqtt:// and mqtts://`);
  const s = baseService(ctx, 'MQTT', `${host.replace(/\/+$/, '')}:${numberAt(m.port) ?? 1883}`);
  const o = s.options;
  // Kuma subscribes and waits for a message on the topic: publish false is the same.
  const topic = text(m.mqtt_topic);
  if (topic) Object.assign(o, { topic, publish: false });
  if (text(m.mqtt_username)) o.username = text(m.mqtt_username);
  if (text(m.mqtt_password)) o.password = report.secret(variableName(name, 'mqtt password'), text(m.mqtt_password)!, `the MQTT password of monitor ${name}`);
  const expected = text(m.mqtt_success_message);
  const check = text(m.mqtt_check_type) ?? 'keyword';
  if (check === 'json-query' && topic) {
    const outcome = jsonQueryAssertion(text(m.json_path) ?? '$', text(m.json_path_operator) ?? '==', String(m.expected_value ?? ''));
    if (outcome.ok) o.assertions = [outcome.assertion];
    else report.unmapped(where, `JSON query not mapped: ${outcome.why}`);
  } else if (expected && topic) o.assertions = [{ source: 'message', comparison: data.major === 2 ? 'contains' : 'equals', target: expected }];
  return s;
}

function radius(ctx: MonitorContext): Service | undefined {
  const { monitor: m, name, where, report } = ctx;
  const secret = text(m.radius_secret);
  const username = text(m.radius_username);
  if (!secret || !username) return skip(report, where, 'a RADIUS check needs the shared secret and a user name');
  const s = hostPort(ctx, 'RADIUS', 1812);
  if (!s) return undefined;
  s.options.secret = report.secret(variableName(name, 'radius secret'), secret, `the RADIUS shared secret of monitor ${name}`);
  s.options.username = username;
  if (text(m.radius_password)) s.options.password = report.secret(variableName(name, 'radius password'), text(m.radius_password)!, `the RADIUS user password of monitor ${name}`);
  if (text(m.radius_called_station_id) || text(m.radius_calling_station_id)) report.unmapped(where, 'Called-Station-Id and Calling-Station-Id are not sent by Outpost');
  return s;
}

function snmp(ctx: MonitorContext): Service | undefined {
  const { monitor: m, name, where, report } = ctx;
  const s = hostPort(ctx, 'SNMP', 161);
  if (!s) return undefined;
  const o = s.options;
  const version = text(m.snmp_version) ?? '2c';
  o.version = version;
  if (version === '3') {
    if (!text(m.snmp_v3_username)) return skip(report, where, 'SNMPv3 without a user name');
    o.username = text(m.snmp_v3_username);
  } else if (text(m.radius_password)) o.community = report.secret(variableName(name, 'snmp community'), text(m.radius_password)!, `the SNMP community of monitor ${name}`);
  const oid = text(m.snmp_oid)?.trim();
  if (!oid) return s;
  o.oids = [oid.replace(/^\./, '')];
  if (text(m.expected_value) !== undefined) {
    const outcome = jsonQueryAssertion(text(m.json_path) ?? '$', text(m.json_path_operator) ?? '==', String(m.expected_value), { source: 'oid', property: oid.replace(/^\./, '') });
    if (outcome.ok) o.assertions = [outcome.assertion];
    else report.unmapped(where, `SNMP value condition not mapped: ${outcome.why}`);
  }
  return s;
}

function smtp(ctx: MonitorContext): Service | undefined {
  const security = text(ctx.monitor.smtp_security) ?? 'nostarttls';
  if (security === 'secure') return skip(ctx.report, ctx.where, "SMTPS (TLS from the first byte): Outpost's SMTP check reads a plain greeting");
  if (security === 'starttls') ctx.report.unmapped(ctx.where, 'STARTTLS is not attempted: the SMTP check reads the greeting and EHLO');
  return hostPort(ctx, 'SMTP', 25);
}

function ntp(ctx: MonitorContext): Service | undefined {
  const { monitor: m, where, report } = ctx;
  const host = text(m.hostname)?.trim();
  if (!host) return skip(report, where, 'it has no host name');
  const port = numberAt(m.port) ?? 123;
  const s = baseService(ctx, 'NTP', port === 123 ? host : `${host}:${port}`);
  // Kuma fails at or past each threshold (defaults 5, 1000 ms); the offset either way.
  const stratum = numberAt(m.ntp_stratum_threshold) || 5;
  const offset = numberAt(m.ntp_time_offset_threshold) || 1000;
  s.options.assertions = [
    { source: 'stratum', comparison: 'less_than', target: stratum },
    { source: 'offset_ms', comparison: 'less_than', target: offset },
    { source: 'offset_ms', comparison: 'greater_than', target: -offset },
  ];
  report.unmapped(where, 'root dispersion threshold: Outpost does not read the root dispersion');
  return s;
}

function websocket(ctx: MonitorContext): Service | undefined {
  const { monitor: m, where, report } = ctx;
  const url = text(m.url)?.trim();
  if (!url || !/^wss?:\/\//i.test(url)) return skip(report, where, `the URL ${url ?? '(none)'} is not ws:// or wss://`);
  const s = baseService(ctx, 'WEBSOCKET', url);
  if (isTrue(m.ignore_tls)) s.options.verify_tls = false;
  if (text(m.ws_subprotocol)) report.unmapped(where, `subprotocol ${text(m.ws_subprotocol)}: Outpost offers none`);
  return s;
}

function grpc(ctx: MonitorContext): Service | undefined {
  const { monitor: m, where, report } = ctx;
  const target = text(m.grpc_url)?.trim().replace(/^[a-z]+:\/\//i, '');
  if (!target || !/:\d+$/.test(target)) return skip(report, where, `the gRPC address ${target ?? '(none)'} has no port`);
  const s = baseService(ctx, 'GRPC', target);
  if (isTrue(m.grpc_enable_tls)) s.options.tls = true;
  report.unmapped(where, `Uptime Kuma calls ${text(m.grpc_service_name) ?? '?'}/${text(m.grpc_method) ?? '?'} and looks for "${text(m.keyword) ?? ''}"; Outpost asks the standard health service (grpc.health.v1) instead`);
  return s;
}

const DATABASE_SCHEMES: Record<string, RegExp> = { POSTGRES: /^postgres(ql)?$/, MYSQL: /^(mysql|mariadb)$/, MONGODB: /^mongodb$/, REDIS: /^rediss?$/ };

function database(ctx: MonitorContext, type: 'POSTGRES' | 'MYSQL' | 'MONGODB' | 'REDIS'): Service | undefined {
  const { monitor: m, name, where, report } = ctx;
  const connection = parseConnection(text(m.database_connection_string) ?? '');
  if (!connection || !DATABASE_SCHEMES[type]!.test(connection.scheme)) return skip(report, where, `the connection string is not a ${type.toLowerCase()}:// URL Outpost can take apart (mongodb+srv:// and key=value strings are not)`);
  if (connection.scheme === 'rediss') return skip(report, where, "rediss:// (TLS): Outpost's REDIS check speaks plain TCP");
  const s = baseService(ctx, type, `${connection.host}:${connection.port}`);
  const o = s.options;
  if (connection.username) o.username = connection.username;
  if (connection.password) o.password = report.secret(variableName(name, 'password'), connection.password, `the password in the connection string of monitor ${name}`);
  if (connection.database && type !== 'REDIS') o.database = connection.database;
  const query = text(m.database_query)?.trim();
  if (query && (type === 'POSTGRES' || type === 'MYSQL')) o.query = query;
  if (query && type === 'MONGODB') {
    if (typeof parsedJson(query) === 'object') o.command = query;
    else report.unmapped(where, 'the query is not a JSON command; not imported');
  }
  if (query && type === 'POSTGRES' && !/^\s*(select|with|show|values)\b/i.test(query)) report.unmapped(where, 'the query runs in a transaction that is rolled back: what it writes is not kept');
  if (connection.parameters.length > 0) report.unmapped(where, `connection parameters ${connection.parameters.join(', ')} are not read by Outpost's check`);
  if (connection.otherHosts.length > 0) report.unmapped(where, `only the first host is checked; ${connection.otherHosts.join(', ')} are not`);
  return s;
}

function escapeRe2(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
