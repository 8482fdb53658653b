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
  }
}

function urlProblem(endpoint: string, schemes: string[]): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `must be a URL starting with ${schemes.map((s) => `${s}//`).join(' or ')}`;
  }
  if (!schemes.includes(url.protocol)) return `must be a URL starting with ${schemes.map((s) => `${s}//`).join(' or ')}`;
  if (!url.hostname) return 'must name a host';
  return null;
}
