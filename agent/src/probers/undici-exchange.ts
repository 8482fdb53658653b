// The exchanges the hand-written HTTP/1.1 path (http-request.ts) does not make: HTTP/2, ALPN's
// choice between it and HTTP/1.1, and any request through a proxy (ADR 0014). undici speaks
// HTTP/1.1, and HTTP/2 over node:http2; the connection is dialled here, directly or through a
// CONNECT tunnel, so that its phases are timed and its certificate read as on the hand-written
// path. The client lives for one exchange and is destroyed after it, its connection with it.
import { once } from 'node:events';
import net from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import { Client, type buildConnector } from 'undici';
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import { openTunnel, proxyAuthorization } from '../control/proxy-tunnel.js';
import type { ClientTls } from './client-tls.js';
import { PhaseTimer } from './http-phases.js';
import { describeCertificate, flatHeaders, type HttpExchange, type ReadExchange, type RequestFields } from './http-request.js';
import type { ProbeSignal } from './probe-signal.js';

export interface UndiciRoute {
  version: '1.1' | '2' | 'auto';
  tls: ClientTls;
  proxy?: URL;
  maxBodyBytes: number;
}

type Track = <S extends net.Socket>(socket: S) => S;

/** Fields undici writes itself (framing, the connection's own) or refuses outright. */
const OWN_FIELDS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'proxy-connection', 'upgrade', 'expect']);

export async function undiciExchange(url: URL, fields: RequestFields, route: UndiciRoute, signal: ProbeSignal): Promise<ReadExchange> {
  const secure = url.protocol === 'https:';
  // Plain HTTP through a proxy is a request in absolute form to it; HTTPS, and HTTP/2 (which
  // forward proxies do not speak), go through a CONNECT tunnel.
  const forward = route.proxy !== undefined && !secure && route.version !== '2';
  const timer = new PhaseTimer();
  const sockets: net.Socket[] = [];
  let socketError: Error | undefined;
  // Every socket of the exchange is destroyed at its end, whoever holds it then. Its first error
  // is kept: undici reports a TLS alert read after the handshake as "other side closed". The
  // listener also keeps an error between the dial and undici's taking the socket (or on a
  // tunnel under TLS) from being an uncaught exception.
  const track: Track = (socket) => {
    sockets.push(socket);
    socket.on('error', (err: Error & { code?: string }) => {
      if (err.code !== 'UND_ERR_SOCKET') socketError ??= err;
    });
    return socket;
  };
  const connection: { certificate?: HttpExchange['certificate']; httpVersion: '1.1' | '2' } = { httpVersion: '1.1' };

  const dial = async (): Promise<net.Socket> => {
    const tunnel = route.proxy && !forward ? track(await openTunnel(route.proxy, authorityOf(url), { signal, phases: timer })) : undefined;
    if (!secure) {
      const socket = tunnel ?? (await connectPlain(forward ? route.proxy! : url, timer, track));
      // HTTP/2 over cleartext is spoken from the first byte (prior knowledge): undici goes by this.
      if (route.version === '2') Object.assign(socket, { alpnProtocol: 'h2' });
      connection.httpVersion = route.version === '2' ? '2' : '1.1';
      return socket;
    }
    const socket = await connectTls(url, tunnel, route, timer, track);
    connection.certificate = describeCertificate(socket);
    connection.httpVersion = socket.alpnProtocol === 'h2' ? '2' : '1.1';
    return socket;
  };
  const connect: buildConnector.connector = (_params, callback) => {
    dial().then(
      (socket) => callback(null, socket),
      (err: Error) => callback(err, null),
    );
  };

  const client = new Client(forward ? route.proxy!.origin : url.origin, { connect });
  const onAbort = () => {
    void client.destroy(new Error('aborted'));
    // With an error, so that a dial waiting on one of them gives up too.
    for (const socket of sockets) socket.destroy(new Error('aborted'));
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(fields.headers)) if (!OWN_FIELDS.has(name.toLowerCase())) headers[name] = value;
    if (forward) {
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'host')) headers.host = url.host;
      const credentials = proxyAuthorization(route.proxy!);
      if (credentials) headers['proxy-authorization'] = credentials;
    }
    const response = await client.request({
      path: forward ? `${url.protocol}//${url.host}${url.pathname}${url.search}` : `${url.pathname}${url.search}`,
      method: fields.method as 'GET',
      headers,
      body: fields.body,
      reset: true,
    });
    // undici hands over the head, not the bytes: the first byte is timed at the head.
    timer.mark('firstByte');
    if (forward && response.statusCode === 407) throw new Error('the proxy answered 407 Proxy Authentication Required');
    const body = await readBody(response.body, route.maxBodyBytes);
    return {
      status: response.statusCode,
      headers: flatHeaders(response.headers),
      body: body.bytes,
      bodyTruncated: body.truncated,
      timings: timer.phases(),
      certificate: connection.certificate,
      httpVersion: connection.httpVersion,
    };
  } catch (err) {
    throw (err as { code?: unknown }).code === 'UND_ERR_SOCKET' && socketError ? socketError : err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    await client.destroy();
    for (const socket of sockets) socket.destroy();
  }
}

function authorityOf(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
}

async function connectPlain(to: URL, timer: PhaseTimer, track: Track): Promise<net.Socket> {
  const socket = track(net.connect({ host: withoutBrackets(to.hostname), port: Number(to.port) || (to.protocol === 'https:' ? 443 : 80) }));
  socket.once('lookup', () => timer.mark('lookup'));
  await once(socket, 'connect');
  timer.mark('connect');
  return socket;
}

/** HTTP/1.1 only, HTTP/2 only, or either as the server prefers ("auto"): what ALPN offers. */
const ALPN: Record<UndiciRoute['version'], string[]> = { '1.1': ['http/1.1'], '2': ['h2'], auto: ['h2', 'http/1.1'] };

async function connectTls(url: URL, tunnel: net.Socket | undefined, route: UndiciRoute, timer: PhaseTimer, track: Track): Promise<TLSSocket> {
  const host = withoutBrackets(url.hostname);
  const socket = track(tls.connect({
    socket: tunnel,
    host,
    port: Number(url.port) || 443,
    servername: net.isIP(host) ? undefined : host,
    rejectUnauthorized: route.tls.rejectUnauthorized,
    secureContext: route.tls.secureContext,
    ALPNProtocols: ALPN[route.version],
  }));
  socket.once('lookup', () => timer.mark('lookup'));
  socket.once('connect', () => timer.mark('connect'));
  await once(socket, 'secureConnect');
  timer.mark('tls');
  // A server without ALPN answers none: HTTP/2 was then not agreed to either.
  if (route.version === '2' && socket.alpnProtocol !== 'h2') throw new Error('the server did not agree to HTTP/2 in the TLS handshake (ALPN)');
  return socket;
}

/** At most maxBytes of the body; reading stops there and the stream is destroyed. */
async function readBody(body: AsyncIterable<Buffer>, maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= maxBytes) return { bytes: Buffer.concat(chunks).subarray(0, maxBytes), truncated: true };
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}
