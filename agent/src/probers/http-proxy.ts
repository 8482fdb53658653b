// The proxy an HTTP or WebSocket check goes through (its `proxy` option: a URL, or "env" for
// the agent's HTTP_PROXY, HTTPS_PROXY and NO_PROXY), and the CONNECT tunnel through one.
import http from 'node:http';
import type { Socket } from 'node:net';
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import { proxyFor } from '../control/proxy-tunnel.js';
import type { PhaseTimer } from './http-phases.js';
import type { ProbeSignal } from './probe-signal.js';

export type ProxyResolver = (url: URL) => URL | undefined;

/**
 * Where the checks of a target go through. "env" is read here, once per target: the probers are
 * built without the agent's run configuration, which is where config.ts reads the rest of it.
 */
export function proxyResolver(option: string | undefined, env: Record<string, string | undefined> = process.env): ProxyResolver {
  if (option === undefined) return () => undefined;
  if (option !== 'env') {
    const proxy = httpProxyUrl(option, 'proxy');
    return () => proxy;
  }
  // As curl reads them; the lower-case name first.
  const httpProxy = env.http_proxy || env.HTTP_PROXY;
  const httpsProxy = env.https_proxy || env.HTTPS_PROXY;
  const noProxy = env.no_proxy || env.NO_PROXY;
  return (url) => {
    const secure = url.protocol === 'https:' || url.protocol === 'wss:';
    const value = secure ? httpsProxy : httpProxy;
    if (!value) return undefined;
    // curl takes a proxy without a scheme as http://.
    const proxy = httpProxyUrl(value.includes('://') ? value : `http://${value}`, secure ? 'HTTPS_PROXY' : 'HTTP_PROXY');
    return proxyFor(withoutBrackets(url.hostname), { url: proxy.href, noProxy });
  };
}

/** The proxy is spoken to in plain HTTP: a TLS connection to the proxy itself is not supported. */
function httpProxyUrl(value: string, name: string): URL {
  const proxy = URL.canParse(value) ? new URL(value) : undefined;
  if (proxy?.protocol !== 'http:') throw new Error(`${name} is not an http:// proxy URL`);
  return proxy;
}

/** The Proxy-Authorization header a proxy URL's user and password make, if it has them. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
}

/**
 * A connection to `authority` (HOST:PORT) through the proxy's CONNECT method; `connect` is
 * marked when the tunnel is up. Given up when `signal` aborts; once resolved, the socket is the
 * caller's to close.
 */
export function openTunnel(proxy: URL, authority: string, signal: ProbeSignal, timer?: PhaseTimer): Promise<Socket> {
  const headers: Record<string, string> = { host: authority };
  const credentials = proxyAuthorization(proxy);
  if (credentials) headers['proxy-authorization'] = credentials;
  const request = http.request({ host: withoutBrackets(proxy.hostname), port: Number(proxy.port) || 80, method: 'CONNECT', path: authority, headers, agent: false });
  const onAbort = () => request.destroy(new Error('aborted'));
  return new Promise<Socket>((resolve, reject) => {
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    request.once('socket', (socket) => socket.once('lookup', () => timer?.mark('lookup')));
    request.once('connect', (response, socket: Socket, head: Buffer) => {
      timer?.mark('connect');
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        socket.destroy();
        return reject(new Error(`the proxy answered ${status} ${response.statusMessage ?? ''}`.trim()));
      }
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    request.once('error', reject);
    request.end();
  }).finally(() => signal.removeEventListener('abort', onAbort));
}
