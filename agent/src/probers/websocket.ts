// WEBSOCKET and WS: the HTTP upgrade handshake (ws:// or wss://), then a clean close. Passes
// on 101 Switching Protocols. The connection options are the HTTP client's (client-tls.ts,
// http-proxy.ts, http-client.ts): verify_tls, ca_certificate, a client certificate, a bearer
// token or an OAuth2 grant, and a proxy, which a WebSocket goes through by CONNECT.
import net from 'node:net';
import tls from 'node:tls';
import WebSocket, { type ClientOptions } from 'ws';
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import { openTunnel } from '../control/proxy-tunnel.js';
import { clientTls, type ClientTls } from './client-tls.js';
import { clientAuthorization } from './http-client.js';
import { flatHeaders } from './http-request.js';
import { proxyResolver, type ProxyResolver } from './http-proxy.js';
import { describeNetworkError } from './network-errors.js';
import { createTokenCache, type TokenCache } from './oauth2-token-cache.js';
import type { ProbeSignal } from './probe-signal.js';
import type { Observed, Prober, ProbeResult, ProbeTarget } from './prober.js';

const CLOSE_WAIT_MS = 1_000;

/** What every check of a target starts from, made once per assignment. */
interface PreparedTarget {
  url: URL;
  tls: ClientTls;
  proxies: ProxyResolver;
  authorize: ReturnType<typeof clientAuthorization>;
}

/** `tokens` keeps oauth2 tokens for all the targets this prober checks. */
export function websocketProber(tokens: TokenCache = createTokenCache()): Prober<'WEBSOCKET'> {
  return {
    family: 'WEBSOCKET',
    prepare(target) {
      const o = target.options;
      let prepared: PreparedTarget;
      try {
        prepared = { url: new URL(target.endpoint), tls: clientTls(o), proxies: proxyResolver(o.proxy), authorize: clientAuthorization(o, tokens) };
      } catch (err) {
        const message = describeNetworkError(err);
        return () => Promise.resolve({ ok: false, responseTimeMs: 0, message, details: {} });
      }
      return (signal) => probe(target, prepared, signal);
    },
  };
}

async function probe(target: ProbeTarget<'WEBSOCKET'>, prepared: PreparedTarget, signal: ProbeSignal): Promise<ProbeResult> {
  const started = performance.now();
  const { url, authorize } = prepared;
  let authorization: string | undefined;
  let tunnel: net.Socket | undefined;
  try {
    authorization = typeof authorize === 'function' ? await authorize(signal) : authorize;
    const proxy = prepared.proxies(url);
    if (proxy) tunnel = await openTunnel(proxy, `${url.hostname}:${url.port || (url.protocol === 'wss:' ? 443 : 80)}`, { signal });
  } catch (err) {
    const message = signal.aborted ? `timed out after ${target.timeoutMs} ms` : describeNetworkError(err);
    return { ok: false, responseTimeMs: Math.round(performance.now() - started), message, details: {} };
  }
  return handshake(target, prepared, { authorization, tunnel }, signal, started);
}

function handshake(target: ProbeTarget<'WEBSOCKET'>, prepared: PreparedTarget, via: { authorization?: string; tunnel?: net.Socket }, signal: ProbeSignal, started: number): Promise<ProbeResult> {
  const elapsed = () => Math.round(performance.now() - started);
  const headers: Record<string, string> = { 'user-agent': 'outpost-agent' };
  if (via.authorization) headers.authorization = via.authorization;
  // The user's headers win, whatever their case.
  for (const [name, value] of Object.entries(target.options.headers ?? {})) {
    delete headers[name.toLowerCase()];
    headers[name] = value;
  }
  return new Promise<ProbeResult>((resolve) => {
    const socket = new WebSocket(prepared.url, {
      headers,
      handshakeTimeout: target.timeoutMs,
      followRedirects: false,
      perMessageDeflate: false,
      createConnection: connection(prepared, via.tunnel),
    });
    let observed: Observed | undefined;
    let settled = false;
    const finish = (result: ProbeResult) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(observed ? { ...result, observed } : result);
    };
    const onAbort = () => {
      socket.terminate();
      finish({ ok: false, responseTimeMs: elapsed(), message: `timed out after ${target.timeoutMs} ms`, details: {} });
    };
    // The deadline may have passed while the token or the tunnel was awaited.
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    socket.once('close', () => via.tunnel?.destroy());
    socket.once('upgrade', (res) => (observed = { status: 101, headers: flatHeaders(res.headers) }));
    socket.once('open', () => {
      const upgradeMs = elapsed();
      const result = { ok: true, responseTimeMs: upgradeMs, message: `WebSocket 101 Switching Protocols in ${upgradeMs} ms`, details: { upgrade_ms: upgradeMs, status_code: 101 } };
      // A clean close; a peer that never answers it is cut off shortly after.
      const force = setTimeout(() => socket.terminate(), CLOSE_WAIT_MS);
      socket.once('close', () => clearTimeout(force));
      socket.close(1000, 'outpost check done');
      finish(result);
    });
    socket.once('unexpected-response', (_req, res) => {
      observed = { status: res.statusCode ?? 0, headers: flatHeaders(res.headers) };
      res.resume();
      socket.terminate();
      finish({ ok: false, responseTimeMs: elapsed(), message: `HTTP ${res.statusCode} instead of 101 Switching Protocols`, details: { status_code: res.statusCode ?? 0 } });
    });
    socket.once('error', (err) => {
      socket.terminate();
      finish({ ok: false, responseTimeMs: elapsed(), message: describeNetworkError(err), details: {} });
    });
  });
}

/**
 * How ws connects when the check's own TLS settings or a tunnel are in play: TLS with the
 * target's secure context, over the proxy's tunnel when there is one. ws passes the request's
 * path along, which tls.connect would take for a socket file's.
 */
function connection(prepared: PreparedTarget, tunnel: net.Socket | undefined): ClientOptions['createConnection'] {
  if (prepared.url.protocol !== 'wss:') return tunnel && (() => tunnel);
  const host = withoutBrackets(prepared.url.hostname);
  const { rejectUnauthorized, secureContext } = prepared.tls;
  return (options) => tls.connect({ ...(options as tls.ConnectionOptions), path: undefined, socket: tunnel, servername: net.isIP(host) ? undefined : host, rejectUnauthorized, secureContext });
}
