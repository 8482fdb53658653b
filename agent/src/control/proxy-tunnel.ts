// The way out of a network that only lets HTTP proxies through: an HTTP CONNECT tunnel to
// the control plane (HTTPS_PROXY), unless NO_PROXY names the control plane's host; the
// checks that go through a proxy (probers/http-proxy.ts) open theirs here too.
import http from 'node:http';
import type { Socket } from 'node:net';
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import type { ProbeSignal } from '../probers/probe-signal.js';

export interface ProxySettings {
  /** http://[user:password@]host:port */
  url: string;
  /** Hosts reached directly, comma-separated: `*`, a name (its subdomains too), or an address; a port is ignored. */
  noProxy?: string;
}

/** The proxy for `host`, or undefined when NO_PROXY names it. */
export function proxyFor(host: string, settings: ProxySettings): URL | undefined {
  const wanted = host.toLowerCase().replace(/\.$/, '');
  const bypassed = (settings.noProxy ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean)
    .map(entryHost)
    .some((bypass) => bypass === '*' || wanted === bypass || wanted.endsWith(`.${bypass}`));
  return bypassed ? undefined : new URL(settings.url);
}

/** A NO_PROXY entry's host: without brackets, a port, or a leading `.` or `*.`. */
function entryHost(entry: string): string {
  const host = entry.startsWith('[') ? entry.slice(1, entry.indexOf(']')) : entry.split(':').length === 2 ? entry.slice(0, entry.indexOf(':')) : entry;
  return host.replace(/^\*?\./, '');
}

const TUNNEL_TIMEOUT_MS = 30_000;

/** The Proxy-Authorization header a proxy URL's user and password make, if it has them. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
}

export interface TunnelOptions {
  /** Gives up when it aborts (a check's deadline); without one, after TUNNEL_TIMEOUT_MS with no answer from the proxy. */
  signal?: ProbeSignal;
  /** Told when the proxy's address is looked up and when the tunnel is up: a check's phases. */
  phases?: { mark(phase: 'lookup' | 'connect'): void };
}

/** A connection to `authority` (HOST:PORT) through `proxy`'s CONNECT method; once resolved, the caller's to close. */
export function openTunnel(proxy: URL, authority: string, { signal, phases }: TunnelOptions = {}): Promise<Socket> {
  const headers: Record<string, string> = { host: authority };
  const credentials = proxyAuthorization(proxy);
  if (credentials) headers['proxy-authorization'] = credentials;
  const request = http.request({
    host: withoutBrackets(proxy.hostname),
    port: Number(proxy.port) || 80,
    method: 'CONNECT',
    path: authority,
    headers,
    agent: false,
    timeout: signal ? undefined : TUNNEL_TIMEOUT_MS,
  });
  const onAbort = () => request.destroy(new Error('aborted'));
  return new Promise<Socket>((resolve, reject) => {
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    request.once('socket', (socket) => socket.once('lookup', () => phases?.mark('lookup')));
    request.once('connect', (response, socket: Socket, head: Buffer) => {
      phases?.mark('connect');
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        socket.destroy();
        return reject(new Error(`the proxy answered ${status} ${response.statusMessage ?? ''}`.trim()));
      }
      socket.setTimeout(0); // the timeout was for the proxy's answer; what runs over the tunnel has its own
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    request.once('timeout', () => request.destroy(new Error(`no answer from the proxy within ${TUNNEL_TIMEOUT_MS} ms`)));
    request.once('error', reject);
    request.end();
  }).finally(() => signal?.removeEventListener('abort', onAbort));
}
