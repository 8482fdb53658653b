// The targets of bench/check-features.ts, in a process of their own so their CPU is nobody's:
// an HTTP server answering `/` with "ok" (the plain check and the bare loop), `/json` with a
// health document (1.3 kB), `/json-20k` with a larger one (about 20 kB, issue 44's P1 case), `/gzip`
// with the first gzip-compressed; an HTTPS server speaking
// HTTP/2 and HTTP/1.1 with a self-signed certificate; a forward proxy in front of the HTTP one.
// Prints {"http", "https", "proxy"} (ports) once listening; runs until SIGTERM.
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { selfSignedCertificate } from '../../test/fixtures/peers/self-signed.js';
import { startHttpProxy } from '../../test/support/connect-proxy.js';

const health = JSON.stringify({
  status: 'UP',
  version: '2.4.1',
  checks: Array.from({ length: 12 }, (_, i) => ({ name: `dependency-${i}`, status: 'UP', latency_ms: 3 + i, detail: 'connection pool healthy, 4 of 20 in use' })),
});
const gzipped = gzipSync(health);
const health20k = JSON.stringify({
  status: 'UP',
  version: '2.4.1',
  checks: Array.from({ length: 190 }, (_, i) => ({ name: `dependency-${i}`, status: 'UP', latency_ms: 3 + (i % 40), detail: 'connection pool healthy, 4 of 20 in use' })),
});

const httpServer = http.createServer((req, res) => {
  if (req.url === '/json') return res.writeHead(200, { 'content-type': 'application/json' }).end(health);
  if (req.url === '/json-20k') return res.writeHead(200, { 'content-type': 'application/json' }).end(health20k);
  if (req.url === '/gzip') return res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipped);
  res.end('ok\n');
});
const httpsServer = http2.createSecureServer({ ...selfSignedCertificate(), allowHTTP1: true }, (_req, res) => res.end('ok\n'));
await Promise.all([new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r)), new Promise<void>((r) => httpsServer.listen(0, '127.0.0.1', r))]);
const proxy = await startHttpProxy();
console.log(JSON.stringify({ http: (httpServer.address() as AddressInfo).port, https: (httpsServer.address() as AddressInfo).port, proxy: proxy.port }));
process.once('SIGTERM', () => process.exit(0));
