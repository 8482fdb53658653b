// One HTTP(S) request over a new connection, with the time of each phase measured from
// socket events: dns, connect, tls, ttfb (first byte) and transfer (the rest of the body).
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { certificateFacts } from './peer-certificate.js';
import type { ProbeSignal } from './probe-signal.js';

export interface HttpExchange {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body was cut at maxBodyBytes (and the rest never read). */
  bodyTruncated: boolean;
  timings: Record<string, number>;
  certificate?: { subject: string; issuer: string; valid_to: string; days_remaining: number };
}

export interface HttpRequestOptions {
  method: string;
  headers: Record<string, string>;
  body?: string;
  verifyTls: boolean;
  maxBodyBytes: number;
  signal: ProbeSignal;
}

export function httpRequest(url: URL, options: HttpRequestOptions): Promise<HttpExchange> {
  const started = performance.now();
  const since = () => performance.now() - started;
  const marks: Record<string, number> = {};
  const client = url.protocol === 'https:' ? https : http;
  const { signal } = options;
  let socket: import('node:net').Socket | undefined;
  // One abort listener of our own rather than the request's `signal` option, which also hangs
  // a stream-finished watcher (several listeners) on every request.
  let onAbort: (() => void) | undefined;
  // Whatever ends the exchange, the connection goes with it (an aborted request alone can
  // leave its socket open).
  const done = new Promise<HttpExchange>((resolve, reject) => {
    const req = client.request(url, {
      method: options.method,
      headers: { 'user-agent': 'outpost-agent', ...options.headers },
      agent: false,
      rejectUnauthorized: options.verifyTls,
    });
    onAbort = () => req.destroy(new Error('aborted'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let certificate: HttpExchange['certificate'];
    req.once('socket', (s) => {
      socket = s;
      s.once('lookup', () => (marks.lookup = since()));
      s.once('connect', () => (marks.connect = since()));
      if (client === https) {
        s.once('secureConnect', () => {
          marks.tls = since();
          certificate = describeCertificate(s as TLSSocket);
        });
      }
    });
    req.once('response', (res) => {
      marks.firstByte = since();
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (truncated: boolean) =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).subarray(0, options.maxBodyBytes).toString('utf8'),
          bodyTruncated: truncated,
          timings: phases(marks, since()),
          certificate,
        });
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // Enough to judge the keyword: stop here rather than download an endless stream
        // (the connection is destroyed once the exchange settles).
        if (size >= options.maxBodyBytes) {
          res.pause();
          finish(true);
        }
      });
      res.once('end', () => finish(false));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(options.body);
  });
  return done.finally(() => {
    signal.removeEventListener('abort', onAbort!);
    socket?.destroy();
  });
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
