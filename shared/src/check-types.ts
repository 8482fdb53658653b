// The catalogue of check types: every accepted value, its canonical family (what the
// agent runs) and the endpoint format the API validates (SPEC.md 2.1).

export type EndpointFormat =
  | 'http-url'
  | 'ws-url'
  | 'host-port'
  | 'host'
  /** host or host:port: the check type's well-known port when none is given. */
  | 'host-optional-port'
  | 'ldap-url'
  | 'sip-uri'
  | 'mqtt-url'
  | 'amqp-url'
  | 'nats-url'
  /** A container's name or id, on the agent's host. */
  | 'container'
  /** A registered domain name (not an IP address). */
  | 'domain';

export type CheckFamily =
  | 'HTTP'
  | 'TCP'
  | 'ICMP'
  | 'DNS'
  | 'WEBSOCKET'
  | 'SMTP'
  | 'IMAP'
  | 'FTP'
  | 'SSH'
  | 'REDIS'
  | 'MYSQL'
  | 'MONGODB'
  | 'POSTGRES'
  | 'GRPC'
  | 'TLS_CERTIFICATE'
  | 'MULTISTEP'
  | 'SNMP'
  | 'NTP'
  | 'UDP'
  | 'LDAP'
  | 'RADIUS'
  | 'SIP'
  | 'MQTT'
  | 'AMQP'
  | 'NATS'
  | 'DOCKER'
  | 'TRACEROUTE'
  | 'DOMAIN';

interface CheckTypeInfo {
  family: CheckFamily;
  endpoint: EndpointFormat;
}

export interface InternalKind {
  /** What the service is, in a sentence: "this service is {what}". */
  what: string;
  /** The routes that own it: the only way to change it. */
  managedThrough: string;
}

/**
 * Services the control plane creates for one of its own features, never through POST
 * /services and never changed through /services. Heartbeats are pinged, not checked, so no
 * agent runs them; a certificate watch is an agent check of its own family.
 */
const INTERNAL_KINDS = {
  HEARTBEAT: { what: 'a heartbeat', managedThrough: '/api/v1/heartbeats' },
  TLS_CERTIFICATE: { what: 'an SSL certificate watch', managedThrough: '/api/v1/ssl-certificates' },
} as const satisfies Record<string, InternalKind>;

export type InternalKindName = keyof typeof INTERNAL_KINDS;

const CATALOGUE = {
  HTTP: { family: 'HTTP', endpoint: 'http-url' },
  HTTPS: { family: 'HTTP', endpoint: 'http-url' },
  TCP: { family: 'TCP', endpoint: 'host-port' },
  TELNET: { family: 'TCP', endpoint: 'host-port' },
  PING: { family: 'ICMP', endpoint: 'host' },
  ICMP: { family: 'ICMP', endpoint: 'host' },
  DNS: { family: 'DNS', endpoint: 'host' },
  WEBSOCKET: { family: 'WEBSOCKET', endpoint: 'ws-url' },
  WS: { family: 'WEBSOCKET', endpoint: 'ws-url' },
  SMTP: { family: 'SMTP', endpoint: 'host-port' },
  IMAP: { family: 'IMAP', endpoint: 'host-port' },
  FTP: { family: 'FTP', endpoint: 'host-port' },
  SSH: { family: 'SSH', endpoint: 'host-port' },
  REDIS: { family: 'REDIS', endpoint: 'host-port' },
  MYSQL: { family: 'MYSQL', endpoint: 'host-port' },
  MARIADB: { family: 'MYSQL', endpoint: 'host-port' },
  MONGODB: { family: 'MONGODB', endpoint: 'host-port' },
  MONGO: { family: 'MONGODB', endpoint: 'host-port' },
  POSTGRES: { family: 'POSTGRES', endpoint: 'host-port' },
  POSTGRESQL: { family: 'POSTGRES', endpoint: 'host-port' },
  GRPC: { family: 'GRPC', endpoint: 'host-port' },
  TLS_CERTIFICATE: { family: 'TLS_CERTIFICATE', endpoint: 'host-port' },
  MULTISTEP: { family: 'MULTISTEP', endpoint: 'http-url' },
  SNMP: { family: 'SNMP', endpoint: 'host-optional-port' },
  NTP: { family: 'NTP', endpoint: 'host-optional-port' },
  UDP: { family: 'UDP', endpoint: 'host-port' },
  LDAP: { family: 'LDAP', endpoint: 'ldap-url' },
  RADIUS: { family: 'RADIUS', endpoint: 'host-optional-port' },
  SIP: { family: 'SIP', endpoint: 'sip-uri' },
  MQTT: { family: 'MQTT', endpoint: 'mqtt-url' },
  AMQP: { family: 'AMQP', endpoint: 'amqp-url' },
  NATS: { family: 'NATS', endpoint: 'nats-url' },
  DOCKER: { family: 'DOCKER', endpoint: 'container' },
  TRACEROUTE: { family: 'TRACEROUTE', endpoint: 'host' },
  DOMAIN: { family: 'DOMAIN', endpoint: 'domain' },
} as const satisfies Record<string, CheckTypeInfo>;

export type CheckType = keyof typeof CATALOGUE;

/** Every check type an agent may be assigned, internal ones included. */
export const AGENT_CHECK_TYPES = Object.keys(CATALOGUE) as CheckType[];

/** The check types a client may create services with. */
export const CHECK_TYPES = AGENT_CHECK_TYPES.filter((t) => !isInternalCheckType(t));

export function isInternalCheckType(type: string): boolean {
  return internalKind(type) !== undefined;
}

/** What owns a service of this check type, when the control plane made it for a feature of its own. */
export function internalKind(type: string): InternalKind | undefined {
  return Object.hasOwn(INTERNAL_KINDS, type) ? INTERNAL_KINDS[type as InternalKindName] : undefined;
}

/** Upper-cases a check type; undefined when it is not in the catalogue (internal ones are). */
export function normaliseCheckType(value: string): CheckType | undefined {
  const upper = value.trim().toUpperCase();
  return upper in CATALOGUE ? (upper as CheckType) : undefined;
}

export function checkFamily(type: CheckType): CheckFamily {
  return CATALOGUE[type].family;
}

export function endpointFormat(type: CheckType): EndpointFormat {
  return CATALOGUE[type].endpoint;
}
