// One HTTP(S) request over a new connection, with the time of each phase measured from
// socket events: dns, connect, tls, ttfb (first byte) and transfer (the rest of the body).
//
// The request is written to the socket and the response read by http-response-parser.ts,
// not through node's http client: a check needs one exchange on a connection it closes, and
// the client's machinery (agent, outgoing and incoming message streams, header validation
// per call) made an HTTP check cost 1.3x a bare loop of http.get; this costs less than it.
import net from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import { HTTP_FIELD_VALUE, HTTP_TOKEN } from '../../../shared/src/http-syntax.js';
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
}

/** A request ready to go: where to, and its bytes (encodeRequest). Made once per target and per redirect, not per check. */
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

/** How an exchange is read: the same for every check of a target. */
export interface ExchangeSettings {
  verifyTls: boolean;
  maxBodyBytes: number;
}

/** Throws for a method or header the request cannot carry, and a protocol other than HTTP(S). */
export function prepareRequest(url: URL, fields: RequestFields): PreparedRequest {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`unsupported protocol "${url.protocol}"`);
  return { url, bytes: encodeRequest(url, fields), head: fields.method === 'HEAD' };
}

export function httpRequest({ url, bytes, head }: PreparedRequest, settings: ExchangeSettings, signal: ProbeSignal): Promise<HttpExchange> {
  const started = performance.now();
  const since = () => performance.now() - started;
  const marks: Record<string, number> = {};
  const secure = url.protocol === 'https:';
  let socket: net.Socket | undefined;
  let onAbort: (() => void) | undefined;
  const done = new Promise<HttpExchange>((resolve, reject) => {
    // The URL keeps an IPv6 literal in brackets; the socket wants the address alone.
    const host = withoutBrackets(url.hostname);
    const port = Number(url.port) || (secure ? 443 : 80);
    const s = secure
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, rejectUnauthorized: settings.verifyTls })
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
        body: parser.body().toString('utf8'),
        bodyTruncated: parser.truncated,
        timings: phases(marks, since()),
        certificate,
      });
    };
    s.once('lookup', () => (marks.lookup = since()));
    s.once('connect', () => (marks.connect = since()));
    if (secure) {
      s.once('secureConnect', () => {
        marks.tls = since();
        certificate = describeCertificate(s as TLSSocket);
      });
    }
    s.on('data', (chunk: Buffer) => {
      marks.firstByte ??= since();
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

/** The request's bytes: its line, the headers (the user's win over the defaults), the body. */
function encodeRequest(url: URL, options: RequestFields): Buffer {
  if (!HTTP_TOKEN.test(options.method)) throw new Error(`invalid method "${options.method}"`);
  const fields = new Map<string, [string, string]>();
  const set = (name: string, value: string) => fields.set(name.toLowerCase(), [name, value]);
  set('Host', url.host);
  set('User-Agent', 'outpost-agent');
  if (url.username || url.password) {
    set('Authorization', `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`);
  }
  set('Connection', 'close');
  for (const [name, value] of Object.entries(options.headers)) {
    if (!HTTP_TOKEN.test(name)) throw new Error(`invalid header name "${name}"`);
    if (!HTTP_FIELD_VALUE.test(value)) throw new Error(`invalid character in the value of header "${name}"`);
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

function phases(m: Record<string, number>, end: number): Record<string, number> {
  const round = (v: number) => Math.round(v * 10) / 10;
  const t: Record<string, number> = {};
  if (m.lookup !== undefined) t.dns_ms = round(m.lookup);
  const connectStart = m.lookup ?? 0;
  if (m.connect !== undefined) t.connect_ms = round(m.connect - connectStart);
  if (m.tls !== undefined && m.connect !== undefined) t.tls_ms = round(m.tls - m.connect);
  const requestSent = m.tls ?? m.connect;
  if (m.firstByte !== undefined && requestSent !== undefined) t.ttfb_ms = round(m.firstByte - requestSent);
  if (m.firstByte !== undefined) t.transfer_ms = round(end - m.firstByte);
  return t;
}

function describeCertificate(socket: TLSSocket): HttpExchange['certificate'] {
  const facts = certificateFacts(socket.getPeerCertificate(), new Date());
  return facts ? { subject: facts.subject, issuer: facts.issuer, valid_to: facts.valid_to, days_remaining: facts.days_remaining } : undefined;
}
