// One HTTP/1.1 request over a new connection, with the time of each phase measured from
// socket events: dns, connect, tls, ttfb (first byte) and transfer (the rest of the body).
//
// The request is written to the socket and the response read by http-response-parser.ts,
// not through node's http client: a check needs one exchange on a connection it closes, and
// the client's machinery (agent, outgoing and incoming message streams, header validation
// per call) made an HTTP check cost 1.3x a bare loop of http.get; this costs less than it.
// Since ADR 0014 it is the path of every check that needs nothing more; HTTP/2 and proxies go
// through undici (undici-exchange.ts).
import net from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import { HTTP_FIELD_VALUE, HTTP_TOKEN } from '../../../shared/src/http-syntax.js';
import type { ClientTls } from './client-tls.js';
import { PhaseTimer } from './http-phases.js';
import { ResponseParser } from './http-response-parser.js';
import { certificateFacts } from './peer-certificate.js';
import type { ProbeSignal } from './probe-signal.js';

export interface HttpExchange {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** The body was cut at maxBodyBytes (and the rest never read). */
  bodyTruncated: boolean;
  timings: Record<string, number>;
  certificate?: { subject: string; issuer: string; valid_to: string; days_remaining: number };
  /** The protocol the exchange was made in. */
  httpVersion: '1.1' | '2';
}

/** An exchange as read from the connection: the body as the server sent it, before content decoding. */
export interface ReadExchange extends Omit<HttpExchange, 'body'> {
  body: Buffer;
}

/** A request ready to go: where to, and its bytes (encodeRequest). Made once per request object (http-client.ts), not per check. */
export interface PreparedRequest {
  url: URL;
  bytes: Buffer;
  /** A HEAD request: its response has no body, whatever its headers say. */
  head: boolean;
}

export interface RequestFields {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** How an exchange is made and read: the same for every check of a target. */
export interface ExchangeSettings {
  tls: ClientTls;
  maxBodyBytes: number;
}

/**
 * Offered over TLS as `curl --http1.1` does (in ALPN's wire format): a server that speaks HTTP/2
 * only then refuses the handshake by name, where without ALPN node's HTTP/2 server answers 403.
 */
const HTTP1_ALPN = Buffer.from('\x08http/1.1', 'latin1');

/** Throws for a method or header the request cannot carry. */
export function prepareRequest(url: URL, fields: RequestFields): PreparedRequest {
  return { url, bytes: encodeRequest(url, fields), head: fields.method === 'HEAD' };
}

export function httpRequest({ url, bytes, head }: PreparedRequest, settings: ExchangeSettings, signal: ProbeSignal): Promise<ReadExchange> {
  const timer = new PhaseTimer();
  const secure = url.protocol === 'https:';
  let socket: net.Socket | undefined;
  let onAbort: (() => void) | undefined;
  const done = new Promise<ReadExchange>((resolve, reject) => {
    // The URL keeps an IPv6 literal in brackets; the socket wants the address alone.
    const host = withoutBrackets(url.hostname);
    const port = Number(url.port) || (secure ? 443 : 80);
    const s = secure
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, rejectUnauthorized: settings.tls.rejectUnauthorized, secureContext: settings.tls.secureContext, ALPNProtocols: HTTP1_ALPN })
      : net.connect({ host, port });
    socket = s;
    onAbort = () => s.destroy(new Error('aborted'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let certificate: HttpExchange['certificate'];
    const parser = new ResponseParser({ headRequest: head, maxBodyBytes: settings.maxBodyBytes });
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      const head = parser.head!;
      resolve({
        status: head.status,
        headers: head.headers,
        body: parser.body(),
        bodyTruncated: parser.truncated,
        timings: timer.phases(),
        certificate,
        httpVersion: '1.1',
      });
    };
    s.once('lookup', () => timer.mark('lookup'));
    s.once('connect', () => timer.mark('connect'));
    if (secure) {
      s.once('secureConnect', () => {
        timer.mark('tls');
        certificate = describeCertificate(s as TLSSocket);
      });
    }
    s.on('data', (chunk: Buffer) => {
      timer.mark('firstByte');
      try {
        if (parser.write(chunk)) finish();
      } catch (err) {
        reject(err);
      }
    });
    s.once('end', () => {
      try {
        parser.end();
        finish();
      } catch (err) {
        reject(err);
      }
    });
    s.on('error', reject);
    // Queued until the connection (and TLS) is up.
    s.write(bytes);
  });
  // Whatever ends the exchange, the connection goes with it.
  return done.finally(() => {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    socket?.destroy();
  });
}

/** Methods that send no Content-Length without a body (as node's client does). */
const BODILESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);
/** The request's framing is ours to write: a user's value would contradict the body sent. */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding']);

/** Throws for a method or a header that cannot go into a request head. */
export function checkFields(method: string, headers: Record<string, string>): void {
  if (!HTTP_TOKEN.test(method)) throw new Error(`invalid method "${method}"`);
  for (const [name, value] of Object.entries(headers)) {
    if (!HTTP_TOKEN.test(name)) throw new Error(`invalid header name "${name}"`);
    if (!HTTP_FIELD_VALUE.test(value)) throw new Error(`invalid character in the value of header "${name}"`);
  }
}

/** The request's bytes: its line, the headers (the caller's win over Host and Connection), the body. */
function encodeRequest(url: URL, options: RequestFields): Buffer {
  checkFields(options.method, options.headers);
  const fields = new Map<string, [string, string]>();
  const set = (name: string, value: string) => fields.set(name.toLowerCase(), [name, value]);
  set('Host', url.host);
  set('Connection', 'close');
  for (const [name, value] of Object.entries(options.headers)) {
    if (!FRAMING_HEADERS.has(name.toLowerCase())) set(name, value);
  }
  const body = options.body === undefined ? undefined : Buffer.from(options.body, 'utf8');
  if (body || !BODILESS.has(options.method)) set('Content-Length', String(body?.length ?? 0));
  let head = `${options.method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  for (const [name, value] of fields.values()) head += `${name}: ${value}\r\n`;
  head += '\r\n';
  const headBytes = Buffer.from(head, 'latin1');
  return body ? Buffer.concat([headBytes, body]) : headBytes;
}

export function describeCertificate(socket: TLSSocket): HttpExchange['certificate'] {
  const facts = certificateFacts(socket.getPeerCertificate(), new Date());
  return facts ? { subject: facts.subject, issuer: facts.issuer, valid_to: facts.valid_to, days_remaining: facts.days_remaining } : undefined;
}

/** Lower-case names as node and undici give them; repeated fields joined with ", " as the parser joins them. */
export function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
