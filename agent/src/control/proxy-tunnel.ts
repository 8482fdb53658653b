// The way out of a network that only lets HTTP proxies through: an HTTP CONNECT tunnel to
// the control plane (HTTPS_PROXY), unless NO_PROXY names the control plane's host.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { withoutBrackets } from '../../../shared/src/endpoints.js';

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

/** A connection to `authority` (HOST:PORT) through `proxy`'s CONNECT method. */
export function openTunnel(proxy: URL, authority: string): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: authority };
    if (proxy.username) {
      const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
      headers['proxy-authorization'] = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    const request = http.request({ host: withoutBrackets(proxy.hostname), port: Number(proxy.port || 80), method: 'CONNECT', path: authority, headers, timeout: TUNNEL_TIMEOUT_MS });
    request.once('connect', (response, socket, head) => {
      if (response.statusCode !== 200) {
        socket.destroy();
        return reject(new Error(`the proxy answered ${response.statusCode} ${response.statusMessage ?? ''}`.trim()));
      }
      socket.setTimeout(0); // the timeout was for the proxy's answer; the stream has pings of its own
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    request.once('timeout', () => request.destroy(new Error(`no answer from the proxy within ${TUNNEL_TIMEOUT_MS} ms`)));
    request.once('error', reject);
    request.end();
  });
}
