import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { selfSignedCertificate } from '../../fixtures/peers/self-signed.js';
import { poll } from '../../support/poll.js';
import { defaultProbers } from '../../../agent/src/probers/index.js';
import { createProberRegistry } from '../../../agent/src/probers/registry.js';
import type { ProbeResult } from '../../../agent/src/probers/prober.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const connectionCount = (server: http.Server) => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

describe('http prober', () => {
  let server: http.Server;
  let base: string;
  const routes = new Map<string, Handler>();
  const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        const handler = routes.get(req.url ?? '') ?? ((_q, s) => s.writeHead(404).end('missing'));
        handler(req, res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    routes.set('/ok', (_q, s) => s.writeHead(200, { 'content-type': 'text/plain' }).end('all systems nominal'));
    routes.set('/error', (_q, s) => s.writeHead(500).end('boom'));
    routes.set('/created', (_q, s) => s.writeHead(201).end());
    routes.set('/hop', (_q, s) => s.writeHead(302, { location: '/ok' }).end());
    routes.set('/loop', (_q, s) => s.writeHead(302, { location: '/loop' }).end());
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (seen.length = 0));

  it('is GREEN on 200 with the status code and phase timings, over a new connection', async () => {
    const r = await runProbe('HTTP', `${base}/ok`);
    expect(r.ok).to.equal(true);
    expect(r.message).to.match(/^HTTP 200 in \d+ ms$/);
    expect(r.details).to.include({ status_code: 200 });
    for (const phase of ['connect_ms', 'ttfb_ms', 'transfer_ms']) expect(r.details[phase], phase).to.be.a('number');
    expect(r.details, 'no TLS phase on plain HTTP').to.not.have.property('tls_ms');
    expect(seen[0]?.headers.connection).to.equal('close');
  });

  it('is RED on 500 by default, and GREEN when 500 is expected', async () => {
    expect((await runProbe('HTTP', `${base}/error`)).ok).to.equal(false);
    expect((await runProbe('HTTP', `${base}/error`, { expected_status: [500] })).ok).to.equal(true);
    expect((await runProbe('HTTP', `${base}/created`, { expected_status: ['2xx'] })).ok).to.equal(true);
    expect((await runProbe('HTTP', `${base}/ok`, { expected_status: [201] })).ok).to.equal(false);
  });

  it('checks for a keyword in the body, or its absence when inverted', async () => {
    expect((await runProbe('HTTP', `${base}/ok`, { keyword: 'nominal' })).ok).to.equal(true);
    const missing = await runProbe('HTTP', `${base}/ok`, { keyword: 'outage' });
    expect(missing.ok).to.equal(false);
    expect(missing.message).to.match(/keyword "outage" not found/);
    expect((await runProbe('HTTP', `${base}/ok`, { keyword: 'outage', keyword_inverted: true })).ok).to.equal(true);
    expect((await runProbe('HTTP', `${base}/ok`, { keyword: 'nominal', keyword_inverted: true })).ok).to.equal(false);
  });

  it('follows redirects by default, not when told not to, and gives up after 10', async () => {
    const followed = await runProbe('HTTP', `${base}/hop`);
    expect(followed.ok).to.equal(true);
    expect(followed.details).to.include({ status_code: 200, redirects: 1, final_url: `${base}/ok` });
    const stopped = await runProbe('HTTP', `${base}/hop`, { follow_redirects: false });
    expect(stopped.details.status_code).to.equal(302);
    expect(stopped.ok, '302 is within the default 200-399').to.equal(true);
    expect((await runProbe('HTTP', `${base}/hop`, { follow_redirects: false, expected_status: [200] })).ok).to.equal(false);
    const loop = await runProbe('HTTP', `${base}/loop`);
    expect(loop.ok).to.equal(false);
    expect(loop.message).to.match(/more than 10 redirects/);
  });

  it('makes the same request on every check of one target, as the scheduler runs it', async () => {
    routes.set('/again', (_q, s) => s.writeHead(307, { location: '/echo' }).end());
    routes.set('/echo', (_q, s) => s.writeHead(204).end());
    const target = { checkType: 'HTTP' as const, endpoint: `${base}/again`, timeoutMs: 5_000, options: { method: 'PUT', headers: { 'x-probe': 'yes' }, body: 'v=1' } };
    const check = createProberRegistry(defaultProbers()).prepare(target);
    const run = () => new Promise<ProbeResult>((resolve) => check(resolve));
    const [first, second] = [await run(), await run()];
    expect([first.ok, second.ok, first.details.redirects, second.details.redirects]).to.deep.equal([true, true, 1, 1]);
    expect(seen.map((r) => [r.method, r.url, r.body, r.headers['x-probe']])).to.deep.equal([
      ['PUT', '/again', 'v=1', 'yes'],
      ['PUT', '/echo', 'v=1', 'yes'],
      ['PUT', '/again', 'v=1', 'yes'],
      ['PUT', '/echo', 'v=1', 'yes'],
    ]);
  });

  it('sends the method, headers and body asked for', async () => {
    routes.set('/echo', (_q, s) => s.writeHead(204).end());
    const r = await runProbe('HTTP', `${base}/echo`, { method: 'POST', headers: { 'x-probe': 'yes' }, body: '{"ping":1}' });
    expect(r.ok).to.equal(true);
    expect(seen[0]).to.include({ method: 'POST', body: '{"ping":1}' });
    expect(seen[0]?.headers['x-probe']).to.equal('yes');
  });

  it("sends the URL's query string, and its user and password as basic authentication", async () => {
    routes.set('/private?since=1h&x=%20', (_q, s) => s.writeHead(200).end());
    const r = await runProbe('HTTP', `${base.replace('//', '//ops:p%40ss@')}/private?since=1h&x=%20#ignored`);
    expect(r.ok, r.message).to.equal(true);
    expect(seen[0]?.url).to.equal('/private?since=1h&x=%20');
    expect(seen[0]?.headers.authorization).to.equal(`Basic ${Buffer.from('ops:p@ss').toString('base64')}`);
  });

  it('reaches an IPv6 literal', async () => {
    const v6 = http.createServer((_q, s) => s.writeHead(200).end());
    await new Promise<void>((r) => v6.listen(0, '::1', r));
    try {
      const r = await runProbe('HTTP', `http://[::1]:${(v6.address() as AddressInfo).port}/`);
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(/^HTTP 200/);
    } finally {
      v6.closeAllConnections();
      await new Promise((r) => v6.close(r));
    }
  });

  it('repeats the method and body on 307, and turns to GET on 303', async () => {
    routes.set('/keep', (_q, s) => s.writeHead(307, { location: '/echo' }).end());
    routes.set('/see-other', (_q, s) => s.writeHead(303, { location: '/echo' }).end());
    routes.set('/echo', (_q, s) => s.writeHead(204).end());
    expect((await runProbe('HTTP', `${base}/keep`, { method: 'PUT', body: 'v=1' })).ok).to.equal(true);
    expect(seen[1]).to.include({ method: 'PUT', url: '/echo', body: 'v=1' });
    seen.length = 0;
    expect((await runProbe('HTTP', `${base}/see-other`, { method: 'POST', body: 'v=1' })).ok).to.equal(true);
    expect(seen[1]).to.include({ method: 'GET', url: '/echo', body: '' });
  });

  it('reads at most 1 MiB of a body that never ends, then closes the connection', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let streams = 0;
    let closed = 0;
    routes.set('/endless', (_q, s) => {
      streams++;
      s.once('close', () => closed++);
      s.writeHead(200, { 'content-type': 'text/plain' });
      // Writes while the client reads; ends only when the client goes away.
      const pump = () => {
        while (!s.destroyed && s.write(chunk));
        if (!s.destroyed) s.once('drain', pump);
      };
      pump();
    });
    const r = await runProbe('HTTP', `${base}/endless`, { keyword: 'needle' }, 5_000);
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/keyword "needle" not found/);
    expect(r.details).to.include({ status_code: 200, body_truncated_at_bytes: 1024 * 1024 });
    expect(streams).to.equal(1);
    await poll(() => closed === 1, { what: 'the server to see the connection closed' });
  });

  it('finds a keyword in a chunked body sent after an interim 103 Early Hints', async () => {
    routes.set('/chunked', (_q, s) => {
      s.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      s.writeHead(200, { 'content-type': 'text/plain' });
      s.write('first part, ');
      setTimeout(() => s.end('then the needle'), 20);
    });
    const r = await runProbe('HTTP', `${base}/chunked`, { keyword: 'needle' });
    expect(r.ok, r.message).to.equal(true);
    expect(r.details).to.include({ status_code: 200 });
  });

  it('does not wait for the body a HEAD response announces', async () => {
    routes.set('/announced', (_q, s) => s.writeHead(200, { 'content-length': '5000' }).end());
    const r = await runProbe('HTTP', `${base}/announced`, { method: 'HEAD' }, 1_000);
    expect(r.ok, r.message).to.equal(true);
    expect(seen[0]?.method).to.equal('HEAD');
  });

  it('is RED when the connection closes before the body it announced', async () => {
    const short = net.createServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this')));
    await new Promise<void>((r) => short.listen(0, '127.0.0.1', r));
    try {
      const r = await runProbe('HTTP', `http://127.0.0.1:${(short.address() as AddressInfo).port}/`);
      expect(r).to.include({ ok: false, message: 'connection closed before the response was complete' });
    } finally {
      await new Promise((r) => short.close(r));
    }
  });

  it('refuses a header value that would end its line, and sends nothing', async () => {
    const r = await runProbe('HTTP', `${base}/ok`, { headers: { 'x-note': 'a\r\nx-injected: 1' } });
    expect(r.ok).to.equal(false);
    expect(r.message).to.equal('invalid character in the value of header "x-note"');
    expect(seen).to.have.length(0);
  });

  it('resolves a host name and reports the lookup time', async () => {
    const r = await runProbe('HTTP', `${base.replace('127.0.0.1', 'localhost')}/ok`);
    expect(r.ok, r.message).to.equal(true);
    expect(r.details.dns_ms).to.be.a('number');
  });

  it('leaves no connection open after a GREEN check', async () => {
    expect((await runProbe('HTTP', `${base}/ok`)).ok).to.equal(true);
    await poll(async () => (await connectionCount(server)) === 0, { what: 'the server to see the connection closed' });
  });

  it('ends at its timeout when the server does not answer', async () => {
    routes.set('/hang', () => undefined);
    const started = Date.now();
    const r = await runProbe('HTTP', `${base}/hang`, {}, 500);
    expect(r).to.include({ ok: false, message: 'timed out after 500 ms' });
    expect(Date.now() - started).to.be.below(2_000);
  });

  itFailsLikeAnyProtocol('HTTP', { otherProtocol: 'SSH-2.0-OpenSSH_9.2p1\r\n', otherProtocolMessage: /^not an HTTP server/, endpointFor: (hostPort) => `http://${hostPort}/` });

  describe('over TLS', () => {
    let tlsServer: https.Server;
    let tlsBase: string;
    before(async () => {
      tlsServer = https.createServer(selfSignedCertificate(), (_req, res) => res.end('secure'));
      await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
      tlsBase = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
    });
    after(async () => {
      tlsServer.closeAllConnections();
      await new Promise((r) => tlsServer.close(r));
    });

    it('is RED for a certificate that does not verify', async () => {
      const r = await runProbe('HTTPS', `${tlsBase}/`);
      expect(r.ok).to.equal(false);
      expect(r.message).to.match(/self-signed/);
    });

    it('is GREEN with verify_tls false, reporting the TLS phase and the certificate', async () => {
      const r = await runProbe('HTTPS', `${tlsBase}/`, { verify_tls: false });
      expect(r.ok, r.message).to.equal(true);
      expect(r.details.tls_ms).to.be.a('number');
      expect(r.details.tls_subject).to.match(/CN=127\.0\.0\.1/);
      expect(r.details.tls_issuer).to.match(/CN=127\.0\.0\.1/);
      expect(r.details.tls_days_remaining).to.be.within(0, 2);
      expect(Date.parse(String(r.details.tls_valid_to))).to.be.greaterThan(Date.now());
    });
  });
});

describe('http prober: what answered', () => {
  let server: http.Server;
  let base: string;
  const seen: http.IncomingHttpHeaders[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.headers);
      if (req.url === '/error') return res.writeHead(500, { 'x-build': '42' }).end('it broke');
      res.writeHead(200, { 'content-type': 'text/plain', 'x-build': '42', 'content-encoding': 'gzip' }).end(gzipSync('all systems nominal'));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => (seen.length = 0));

  it('reports the response as observed, its body decoded, and the HTTP version in the details', async () => {
    const r = await runProbe('HTTP', `${base}/ok`);
    expect(r.ok, r.message).to.equal(true);
    expect(r.details).to.include({ status_code: 200, http_version: '1.1' });
    expect(r.observed).to.deep.include({ status: 200, body: 'all systems nominal' });
    expect(r.observed?.headers).to.include({ 'x-build': '42', 'content-type': 'text/plain' });
    expect(r.observed).to.not.have.property('tls_days_remaining');
    expect(seen[0]).to.include({ 'user-agent': 'outpost-agent', 'accept-encoding': 'gzip, deflate, br' });
  });

  it('reports what answered on a RED check too: a failing status or keyword', async () => {
    const status = await runProbe('HTTP', `${base}/error`);
    expect(status.message).to.match(/^HTTP 500 in \d+ ms: unexpected status$/);
    expect(status.observed).to.deep.include({ status: 500, body: 'it broke' });
    const keyword = await runProbe('HTTP', `${base}/ok`, { keyword: 'outage' });
    expect(keyword.message).to.match(/keyword "outage" not found$/);
    expect(keyword.observed).to.deep.include({ status: 200, body: 'all systems nominal' });
  });

  it('leaves the status to a status assertion when expected_status is not set', async () => {
    const assertions = [{ source: 'status', comparison: 'equals', target: 500 }];
    const judged = await runProbe('HTTP', `${base}/error`, { assertions });
    expect(judged.ok, judged.message).to.equal(true);
    const both = await runProbe('HTTP', `${base}/error`, { assertions, expected_status: [200] });
    expect(both.message).to.match(/unexpected status$/);
  });

  it('reports the days the certificate has left as observed over TLS', async () => {
    const tlsServer = https.createServer(selfSignedCertificate(), (_req, res) => res.end('secure'));
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
    try {
      const r = await runProbe('HTTPS', `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}/`, { verify_tls: false });
      expect(r.ok, r.message).to.equal(true);
      expect(r.observed?.tls_days_remaining).to.be.within(0, 2);
    } finally {
      tlsServer.closeAllConnections();
      await new Promise((r) => tlsServer.close(r));
    }
  });
});
