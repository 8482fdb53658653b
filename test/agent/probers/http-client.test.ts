import { randomBytes } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { expect } from 'chai';
import { createHttpClient } from '../../../agent/src/probers/http-client.js';
import { DeadlineSignal } from '../../../agent/src/probers/probe-signal.js';
import { createClientCa, type ClientCa } from '../../fixtures/peers/client-ca.js';
import { tcpListener } from '../../fixtures/peers/net-fixtures.js';
import { createTestCa, daysFromNow, type KeyPair, type TestCa } from '../../fixtures/peers/test-ca.js';
import { poll } from '../../support/poll.js';
import { runProbe } from './probe-helpers.js';

const MiB = 1024 * 1024;

type Closable = http.Server | http2.Http2Server | http2.Http2SecureServer;

async function listen<S extends Closable>(server: S): Promise<S & { port: number }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}

async function close(server: Closable | undefined): Promise<void> {
  if (!server) return;
  if ('closeAllConnections' in server) server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

/** Counts a server's connections still open (HTTP/1 sockets and HTTP/2 sessions alike ride on them). */
function openConnections(server: Closable): () => number {
  let open = 0;
  server.on('connection', (socket: { once(e: 'close', f: () => void): void }) => {
    open++;
    socket.once('close', () => open--);
  });
  return () => open;
}

describe('http client', () => {
  let ca: TestCa;
  let serverPair: KeyPair;
  before(function () {
    this.timeout(20_000);
    ca = createTestCa();
    serverPair = ca.issue({ commonName: '127.0.0.1', altNames: 'IP:127.0.0.1,DNS:localhost', notBefore: daysFromNow(-1), notAfter: daysFromNow(30) });
  });
  after(() => ca?.dispose());

  describe('HTTP/2', () => {
    let h2: http2.Http2SecureServer & { port: number };
    let h1: https.Server & { port: number };
    let h2c: http2.Http2Server & { port: number };
    let h2Open: () => number;
    before(async () => {
      // Answers in gzip when asked: the body is decoded on this path too.
      h2 = await listen(
        http2.createSecureServer({ ...serverPair, allowHTTP1: false }, (req, res) => {
          const text = `spoken in HTTP/${req.httpVersion}`;
          if (String(req.headers['accept-encoding']).includes('gzip')) res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(text));
          else res.end(text);
        }),
      );
      h2Open = openConnections(h2);
      h1 = await listen(https.createServer(serverPair, (req, res) => res.end(`spoken in HTTP/${req.httpVersion}`)));
      h2c = await listen(http2.createServer((req, res) => res.end(`cleartext HTTP/${req.httpVersion}`)));
    });
    after(async () => {
      await Promise.all([close(h2), close(h1), close(h2c)]);
    });

    it('speaks HTTP/2 to an HTTP/2-only server with http_version "2", timed and closed like any check', async () => {
      const r = await runProbe('HTTPS', `https://127.0.0.1:${h2.port}/`, { http_version: '2', ca_certificate: ca.cert, keyword: 'spoken in HTTP/2.0' });
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^HTTP 200 in \d+ ms$/);
      expect(r.details).to.include({ status_code: 200, http_version: '2', tls_subject: 'CN=127.0.0.1' });
      for (const phase of ['connect_ms', 'tls_ms', 'ttfb_ms', 'transfer_ms']) expect(r.details[phase], phase).to.be.a('number');
      expect(r.observed).to.deep.include({ status: 200, body: 'spoken in HTTP/2.0', tls_days_remaining: 29 });
      await poll(() => h2Open() === 0, { what: 'the HTTP/2 connection to close' });
    });

    it('chooses HTTP/2 through ALPN with "auto", and HTTP/1.1 where the server offers only that', async () => {
      const toH2 = await runProbe('HTTPS', `https://127.0.0.1:${h2.port}/`, { http_version: 'auto', ca_certificate: ca.cert });
      expect(toH2.ok, toH2.message).to.equal(true);
      expect(toH2.details.http_version).to.equal('2');
      const toH1 = await runProbe('HTTPS', `https://127.0.0.1:${h1.port}/`, { http_version: 'auto', ca_certificate: ca.cert, keyword: 'spoken in HTTP/1.1' });
      expect(toH1.ok, toH1.message).to.equal(true);
      expect(toH1.details.http_version).to.equal('1.1');
    });

    it('fails clearly when the server refuses the version asked for', async () => {
      const oneOne = await runProbe('HTTPS', `https://127.0.0.1:${h2.port}/`, { ca_certificate: ca.cert });
      expect(oneOne.ok).to.equal(false);
      expect(oneOne.message).to.equal('the server refused HTTP/1.1 in the TLS handshake (ALPN): it may speak HTTP/2 only; try http_version "2" or "auto"');
      expect(oneOne).to.not.have.property('observed');
      const two = await runProbe('HTTPS', `https://127.0.0.1:${h1.port}/`, { http_version: '2', ca_certificate: ca.cert });
      expect(two.ok).to.equal(false);
      expect(two.message).to.equal('the server refused HTTP/2 in the TLS handshake (ALPN); try http_version "1.1" or "auto"');
    });

    it('speaks HTTP/2 over cleartext with "2" (prior knowledge), and HTTP/1.1 there with "auto"', async () => {
      const r = await runProbe('HTTP', `http://127.0.0.1:${h2c.port}/`, { http_version: '2', keyword: 'cleartext HTTP/2.0' });
      expect(r.ok, r.message).to.equal(true);
      expect(r.details.http_version).to.equal('2');
      const auto = await runProbe('HTTP', `http://127.0.0.1:${h2c.port}/`, { http_version: 'auto' });
      expect(auto.ok, 'an HTTP/2-only cleartext server does not answer HTTP/1.1').to.equal(false);
    });

    it('ends at its timeout against a listener that never answers, on the undici path too, and leaves no socket open', async () => {
      const silent = await tcpListener();
      try {
        for (const [url, http_version] of [[`http://${silent.endpoint}/`, '2'], [`https://${silent.endpoint}/`, 'auto']] as const) {
          const r = await runProbe('HTTP', url, { http_version }, 600);
          expect(r, http_version).to.include({ ok: false, message: 'timed out after 600 ms' });
        }
        expect(silent.accepted()).to.equal(2);
        await poll(() => silent.open() === 0, { what: 'the probes to close their sockets', timeoutMs: 3_000 });
      } finally {
        await silent.close();
      }
    });
  });

  describe('compressed bodies', () => {
    let server: http.Server & { port: number };
    const seen: http.IncomingHttpHeaders[] = [];
    const page = 'status: all systems nominal';
    const bodies: Record<string, [string, Buffer]> = {
      '/gzip': ['gzip', zlib.gzipSync(page)],
      '/br': ['br', zlib.brotliCompressSync(page)],
      '/deflate': ['deflate', zlib.deflateSync(page)],
      '/raw-deflate': ['deflate', zlib.deflateRawSync(page)],
      '/twice': ['gzip, br', zlib.brotliCompressSync(zlib.gzipSync(page))],
      '/unknown': ['zstd', Buffer.from(page)],
      '/broken': ['gzip', Buffer.from('not gzip at all')],
    };
    before(async () => {
      // 16 MiB of zeros in 16 KiB of gzip: 16 times what a check may keep.
      bodies['/bomb'] = ['gzip', zlib.gzipSync(Buffer.alloc(16 * MiB))];
      // Random bytes do not compress: 2 MiB of gzip, cut when 1 MiB of it has been read.
      bodies['/large'] = ['gzip', zlib.gzipSync(Buffer.concat([Buffer.from('needle first '), randomBytes(2 * MiB)]))];
      server = await listen(
        http.createServer((req, res) => {
          seen.push(req.headers);
          const [coding, bytes] = bodies[req.url ?? ''] ?? [undefined, Buffer.from(page)];
          res.writeHead(200, coding ? { 'content-encoding': coding } : {}).end(bytes);
        }),
      );
    });
    after(() => close(server));
    beforeEach(() => (seen.length = 0));

    it('asks for gzip, deflate and br, and finds a keyword in the decoded body of each', async () => {
      for (const path of ['/gzip', '/br', '/deflate', '/raw-deflate', '/twice', '/plain']) {
        const r = await runProbe('HTTP', `http://127.0.0.1:${server.port}${path}`, { keyword: 'nominal' });
        expect(r.ok, `${path}: ${r.message}`).to.equal(true);
        expect(r.observed?.body, path).to.equal(page);
      }
      expect(seen.map((h) => h['accept-encoding'])).to.deep.equal(Array(6).fill('gzip, deflate, br'));
    });

    it("leaves Accept-Encoding to the user's headers, whatever their case", async () => {
      const r = await runProbe('HTTP', `http://127.0.0.1:${server.port}/plain`, { headers: { 'ACCEPT-encoding': 'identity' } });
      expect(r.ok, r.message).to.equal(true);
      expect(seen[0]?.['accept-encoding']).to.equal('identity');
    });

    it('stops decoding a bomb at 1 MiB, and says the body was cut', async () => {
      const r = await runProbe('HTTP', `http://127.0.0.1:${server.port}/bomb`, { keyword: 'needle' });
      expect(r.message).to.match(/keyword "needle" not found/);
      expect(r.details).to.include({ body_truncated_at_bytes: MiB });
      expect(r.observed?.body).to.have.length(MiB);
      const exchange = await createHttpClient({}, { maxBodyBytes: 1000 }).exchange({ url: new URL(`http://127.0.0.1:${server.port}/bomb`), method: 'GET', headers: {} }, new DeadlineSignal());
      expect([exchange.body.length, exchange.bodyTruncated]).to.deep.equal([1000, true]);
    });

    it('decodes the beginning of a compressed body cut at 1 MiB', async () => {
      const r = await runProbe('HTTP', `http://127.0.0.1:${server.port}/large`, { keyword: 'needle first' });
      expect(r.ok, r.message).to.equal(true);
      expect(r.details).to.include({ body_truncated_at_bytes: MiB });
    });

    it('keeps a body in a coding it does not know as sent, and fails one that does not decode', async () => {
      const unknown = await runProbe('HTTP', `http://127.0.0.1:${server.port}/unknown`, { keyword: 'nominal' });
      expect(unknown.ok, unknown.message).to.equal(true);
      const broken = await runProbe('HTTP', `http://127.0.0.1:${server.port}/broken`);
      expect(broken.ok).to.equal(false);
      expect(broken.message).to.match(/^the gzip body could not be decoded: /);
    });
  });

  describe('TLS options', () => {
    let clientCa: ClientCa;
    let privateCa: https.Server & { port: number };
    let mutual: https.Server & { port: number };
    before(async function () {
      this.timeout(20_000);
      clientCa = createClientCa();
      privateCa = await listen(https.createServer(serverPair, (_req, res) => res.end('private')));
      mutual = await listen(
        https.createServer({ ...serverPair, ca: clientCa.cert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
          const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
          res.end(`hello ${String(peer.subject?.CN)}`);
        }),
      );
    });
    after(async () => {
      await Promise.all([close(privateCa), close(mutual)]);
      clientCa?.dispose();
    });

    it('trusts a private CA given as ca_certificate, with verify_tls on, on both paths', async () => {
      const untrusted = await runProbe('HTTPS', `https://127.0.0.1:${privateCa.port}/`);
      expect(untrusted.ok).to.equal(false);
      expect(untrusted.message).to.match(/cannot be verified|local issuer/);
      for (const http_version of ['1.1', 'auto']) {
        const r = await runProbe('HTTPS', `https://127.0.0.1:${privateCa.port}/`, { ca_certificate: ca.cert, http_version, keyword: 'private' });
        expect(r.ok, `${http_version}: ${r.message}`).to.equal(true);
        expect(r.details.tls_issuer).to.equal('CN=Outpost Test CA');
      }
    });

    it('trusts ca_certificate instead of the other roots', async () => {
      const otherCa = createTestCa('Another CA');
      try {
        const r = await runProbe('HTTPS', `https://127.0.0.1:${privateCa.port}/`, { ca_certificate: otherCa.cert });
        expect(r.ok).to.equal(false);
        expect(r.message).to.match(/cannot be verified|local issuer/);
      } finally {
        otherCa.dispose();
      }
    });

    it('presents client_certificate and client_key to a server that requires one, on both paths', async () => {
      const without = await runProbe('HTTPS', `https://127.0.0.1:${mutual.port}/`, { ca_certificate: ca.cert });
      expect(without.ok).to.equal(false);
      expect(without.message).to.equal('TLS handshake failed: tlsv13 alert certificate required');
      const { cert, key } = clientCa.issue('outpost-agent');
      for (const http_version of ['1.1', 'auto']) {
        const r = await runProbe('HTTPS', `https://127.0.0.1:${mutual.port}/`, { ca_certificate: ca.cert, client_certificate: cert, client_key: key, http_version, keyword: 'hello outpost-agent' });
        expect(r.ok, `${http_version}: ${r.message}`).to.equal(true);
      }
    });

    it('names the option whose PEM cannot be used', async () => {
      const { cert, key } = clientCa.issue('someone');
      const cases: [Record<string, unknown>, string][] = [
        [{ ca_certificate: 'not a certificate' }, 'ca_certificate is not a PEM certificate: '],
        [{ client_certificate: 'garbage', client_key: key }, 'client_certificate is not a PEM certificate: '],
        [{ client_certificate: cert, client_key: 'garbage' }, 'client_key is not usable with client_certificate: '],
        [{ client_certificate: cert }, 'client_certificate and client_key are needed together'],
      ];
      for (const [options, message] of cases) {
        const r = await runProbe('HTTPS', `https://127.0.0.1:${mutual.port}/`, options);
        expect(r.ok).to.equal(false);
        expect(r.message.startsWith(message), `${r.message} (for ${Object.keys(options).join(', ')})`).to.equal(true);
      }
    });
  });
});
