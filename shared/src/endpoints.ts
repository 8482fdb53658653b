// Endpoint formats by check type (SPEC.md 2.1): URLs, host:port, or a bare host.
import { isIP } from 'node:net';
import type { EndpointFormat } from './check-types.js';

const HOSTNAME = /^(?=.{1,253}\.?$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?)*\.?$/i;

export interface HostPort {
  host: string;
  port: number;
}

export function isHost(value: string): boolean {
  return isIP(value) !== 0 || HOSTNAME.test(value);
}

/** A host as sockets want it: an IPv6 address without the brackets a URL or HOST:PORT puts around it. */
export function withoutBrackets(host: string): string {
  // Called per HTTP and ICMP check: no regular expression.
  return host.length > 1 && host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** An address the agent may reach in plaintext (the control plane says when --insecure is needed). */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** "db.internal:5432", "10.0.0.1:22", "[::1]:6379"; null when malformed. */
export function parseHostPort(value: string): HostPort | null {
  const match = /^(?:\[([0-9a-f:.%]+)\]|([^:[\]\s]+)):(\d{1,5})$/i.exec(value);
  if (!match) return null;
  const host = match[1] ?? match[2] ?? '';
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return null;
  if (match[1] !== undefined ? isIP(host) !== 6 : !isHost(host)) return null;
  return { host, port };
}

/** "ntp.internal", "10.0.0.1:1123", "::1", "[::1]:161": a host with the check type's port when none is given; null when malformed. */
export function parseHostOptionalPort(value: string, defaultPort: number): HostPort | null {
  if (isIP(withoutBrackets(value)) === 6) return { host: withoutBrackets(value), port: defaultPort };
  if (isHost(value)) return { host: value, port: defaultPort };
  return parseHostPort(value);
}

export interface SipUri {
  host: string;
  port: number;
  transport: 'udp' | 'tcp';
  /** The user part, when the URI names one (sip:alice@pbx.internal). */
  user?: string;
}

const SIP_URI = /^sip:(?:([^@\s;:]+)@)?(\[[0-9a-f:.]+\]|[^\s;:[\]@]+)(?::(\d{1,5}))?((?:;[^\s;]+)*)$/i;

/** "sip:pbx.internal", "sip:alice@10.0.0.5:5070;transport=tcp"; null when malformed (the reason from endpointProblem). */
export function parseSipUri(value: string): SipUri | null {
  const match = SIP_URI.exec(value);
  if (!match) return null;
  const host = withoutBrackets(match[2]!);
  if (!isHost(host)) return null;
  const port = match[3] === undefined ? 5060 : Number(match[3]);
  if (port < 1 || port > 65535) return null;
  let transport: 'udp' | 'tcp' = 'udp';
  for (const param of (match[4] ?? '').split(';').slice(1)) {
    const [name, v] = param.split('=');
    if (name!.toLowerCase() !== 'transport') continue;
    const wanted = v?.toLowerCase();
    if (wanted !== 'udp' && wanted !== 'tcp') return null;
    transport = wanted;
  }
  return { host, port, transport, ...(match[1] !== undefined ? { user: match[1] } : {}) };
}

/** Docker's own rule for names; ids (64 hex digits, or a prefix) fit it too. */
const CONTAINER = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}$/;

/** Why `endpoint` does not fit `format`, or null when it does. */
export function endpointProblem(format: EndpointFormat, endpoint: string): string | null {
  switch (format) {
    case 'http-url':
      return urlProblem(endpoint, ['http:', 'https:']);
    case 'ws-url':
      return urlProblem(endpoint, ['ws:', 'wss:']);
    case 'host-port':
      return parseHostPort(endpoint) ? null : 'must be host:port with a port from 1 to 65535 (IPv6 in brackets)';
    case 'host':
      return isHost(withoutBrackets(endpoint)) ? null : 'must be a hostname or an IP address';
    case 'host-optional-port':
      return parseHostOptionalPort(endpoint, 1) ? null : 'must be a host, or host:port with a port from 1 to 65535 (IPv6 in brackets)';
    case 'ldap-url':
      return urlProblem(endpoint, ['ldap:', 'ldaps:'], { path: false });
    case 'mqtt-url':
      return urlProblem(endpoint, ['mqtt:', 'mqtts:'], { path: false });
    case 'amqp-url':
      // The path is the virtual host.
      return urlProblem(endpoint, ['amqp:', 'amqps:'], { path: true });
    case 'nats-url':
      return urlProblem(endpoint, ['nats:', 'tls:'], { path: false });
    case 'sip-uri':
      return parseSipUri(endpoint) ? null : 'must be a SIP URI: sip:host[:port], optionally with ;transport=udp or ;transport=tcp';
    case 'container':
      return CONTAINER.test(endpoint) ? null : "must be a container's name or id (letters, digits, _ . -)";
    case 'domain':
      return isIP(endpoint) === 0 && HOSTNAME.test(endpoint) && endpoint.replace(/\.$/, '').includes('.') ? null : 'must be a registered domain name, such as example.com';
  }
}

function urlProblem(endpoint: string, schemes: string[], rules: { path?: boolean } = {}): string | null {
  let url: URL;
  const expected = `must be a URL starting with ${schemes.map((s) => `${s}//`).join(' or ')}`;
  try {
    url = new URL(endpoint);
  } catch {
    return expected;
  }
  if (!schemes.includes(url.protocol)) return expected;
  if (!url.hostname) return 'must name a host';
  if (rules.path === undefined) return null;
  // Stored as it is and shown to every viewer: credentials belong in the sealed options.
  if (url.username || url.password) return 'must not carry credentials: put them in options.username and options.password, which are stored encrypted';
  if (!rules.path && url.pathname !== '' && url.pathname !== '/') return 'takes no path';
  if (url.search || url.hash) return 'takes no query or fragment';
  return null;
}
