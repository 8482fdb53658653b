import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createTestCa, daysFromNow, type TestCa } from '../../fixtures/peers/test-ca.js';
import { refusedEndpoint, tcpListener } from '../../fixtures/peers/net-fixtures.js';
import { startHttpProxy, type HttpProxy } from '../../support/connect-proxy.js';
import { poll } from '../../support/poll.js';
import { runProbe } from './probe-helpers.js';

const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'];

/** Runs `fn` with the proxy variables set as given (and the others unset), then puts them back. */
async function withEnvironment<T>(variables: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(PROXY_VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of PROXY_VARIABLES) delete process.env[name];
  Object.assign(process.env, variables);
  try {
    return await fn();
  } finally {
    for (const name of PROXY_VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

describe('http client through a proxy', () => {
  let ca: TestCa;
  let plain: http.Server;
  let secure: https.Server;
  let plainUrl: string;
  let secureUrl: string;
  let proxy: HttpProxy;
  let guarded: HttpProxy;
  const reached: string[] = [];
  before(async function () {
    this.timeout(20_000);
    ca = createTestCa();
    const pair = ca.issue({ commonName: 'localhost', altNames: 'DNS:localhost,IP:127.0.0.1', notBefore: daysFromNow(-1), notAfter: daysFromNow(30) });
    const answer = (scheme: string) => (req: http.IncomingMessage, res: http.ServerResponse) => {
      reached.push(`${scheme} ${req.url}`);
      res.end(`${scheme} target reached`);
    };
    plain = http.createServer(answer('plain'));
    secure = https.createServer(pair, answer('secure'));
    await Promise.all([plain, secure].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
    plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/status?x=1`;
    secureUrl = `https://127.0.0.1:${(secure.address() as AddressInfo).port}/status`;
    [proxy, guarded] = await Promise.all([startHttpProxy(), startHttpProxy('ops:s3cret')]);
  });
  after(async () => {
    await Promise.all([proxy?.close(), guarded?.close()]);
    for (const s of [plain, secure]) s?.closeAllConnections();
    await Promise.all([plain, secure].map((s) => s && new Promise((r) => s.close(r))));
    ca?.dispose();
  });
  beforeEach(() => {
    reached.length = 0;
    proxy.tunnels.length = 0;
    proxy.forwarded.length = 0;
    guarded.tunnels.length = 0;
    guarded.forwarded.length = 0;
  });

  it('sends a plain HTTP check to the proxy as a request in absolute form', async () => {
    const r = await runProbe('HTTP', plainUrl, { proxy: proxy.url(), keyword: 'plain target reached' });
    expect(r.ok, r.message).to.equal(true);
    expect(r.details).to.include({ status_code: 200, http_version: '1.1' });
    expect(proxy.forwarded.map((f) => f.uri)).to.deep.equal([plainUrl]);
    expect(proxy.tunnels).to.deep.equal([]);
    expect(reached).to.deep.equal(['plain /status?x=1']);
  });

  it("tunnels an HTTPS check through CONNECT, verifying the target's certificate", async () => {
    const r = await runProbe('HTTPS', secureUrl, { proxy: proxy.url(), ca_certificate: ca.cert, keyword: 'secure target reached' });
    expect(r.ok, r.message).to.equal(true);
    expect(r.details).to.include({ tls_subject: 'CN=localhost', http_version: '1.1' });
    for (const phase of ['connect_ms', 'tls_ms', 'ttfb_ms']) expect(r.details[phase], phase).to.be.a('number');
    expect(proxy.tunnels).to.deep.equal([new URL(secureUrl).host]);
    expect(proxy.forwarded).to.deep.equal([]);
    const untrusted = await runProbe('HTTPS', secureUrl, { proxy: proxy.url() });
    expect(untrusted.ok).to.equal(false);
    expect(untrusted.message).to.equal('TLS certificate cannot be verified');
  });

  it("sends the proxy URL's credentials, and fails clearly without them", async () => {
    for (const url of [plainUrl, secureUrl]) {
      const refused = await runProbe('HTTP', url, { proxy: guarded.url(), ca_certificate: ca.cert });
      expect(refused.ok).to.equal(false);
      expect(refused.message, url).to.match(/^the proxy answered 407 Proxy Authentication Required$/);
      const passed = await runProbe('HTTP', url, { proxy: guarded.url('ops:s3cret'), ca_certificate: ca.cert });
      expect(passed.ok, `${url}: ${passed.message}`).to.equal(true);
    }
    expect(guarded.refused()).to.equal(2);
    expect([guarded.forwarded.length, guarded.tunnels.length]).to.deep.equal([1, 1]);
    expect(reached).to.deep.equal(['plain /status?x=1', 'secure /status']);
  });

  it('takes HTTP_PROXY and HTTPS_PROXY for "env", and goes direct to the hosts NO_PROXY names', async () => {
    await withEnvironment({ HTTP_PROXY: proxy.url(), HTTPS_PROXY: proxy.url() }, async () => {
      expect((await runProbe('HTTP', plainUrl, { proxy: 'env' })).ok).to.equal(true);
      expect((await runProbe('HTTPS', secureUrl, { proxy: 'env', ca_certificate: ca.cert })).ok).to.equal(true);
    });
    expect([proxy.forwarded.length, proxy.tunnels.length]).to.deep.equal([1, 1]);
    await withEnvironment({ HTTP_PROXY: proxy.url(), HTTPS_PROXY: proxy.url(), NO_PROXY: 'example.com,127.0.0.1' }, async () => {
      expect((await runProbe('HTTP', plainUrl, { proxy: 'env' })).ok).to.equal(true);
      expect((await runProbe('HTTPS', secureUrl, { proxy: 'env', ca_certificate: ca.cert })).ok).to.equal(true);
    });
    await withEnvironment({}, async () => {
      expect((await runProbe('HTTP', plainUrl, { proxy: 'env' })).ok).to.equal(true);
    });
    expect([proxy.forwarded.length, proxy.tunnels.length], 'no more through the proxy').to.deep.equal([1, 1]);
    expect(reached).to.have.length(5);
  });

  it('speaks HTTP/2 through a CONNECT tunnel when the target offers it ("auto")', async () => {
    const { createSecureServer } = await import('node:http2');
    const pair = ca.issue({ commonName: 'localhost', altNames: 'IP:127.0.0.1', notBefore: daysFromNow(-1), notAfter: daysFromNow(30) });
    const h2 = createSecureServer({ ...pair, allowHTTP1: false }, (_req, res) => res.end('over h2'));
    await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
    try {
      const r = await runProbe('HTTPS', `https://127.0.0.1:${(h2.address() as AddressInfo).port}/`, { proxy: proxy.url(), http_version: 'auto', ca_certificate: ca.cert, keyword: 'over h2' });
      expect(r.ok, r.message).to.equal(true);
      expect(r.details.http_version).to.equal('2');
      expect(proxy.tunnels).to.have.length(1);
    } finally {
      await new Promise((r) => h2.close(r));
    }
  });

  it('is RED with "connection refused" when the proxy is down, for either kind of target', async () => {
    const down = `http://${await refusedEndpoint()}`;
    for (const url of [plainUrl, secureUrl]) {
      const r = await runProbe('HTTP', url, { proxy: down });
      expect(r).to.include({ ok: false, message: 'connection refused' });
    }
    expect(reached).to.deep.equal([]);
  });

  it('fails clearly for a proxy it does not speak to: TLS to the proxy, or another scheme in the environment', async () => {
    const tlsProxy = await runProbe('HTTP', plainUrl, { proxy: 'https://127.0.0.1:3129' });
    expect(tlsProxy).to.include({ ok: false, message: 'proxy is not an http:// proxy URL' });
    await withEnvironment({ HTTPS_PROXY: 'socks5://127.0.0.1:1080' }, async () => {
      const socks = await runProbe('HTTP', secureUrl, { proxy: 'env' });
      expect(socks).to.include({ ok: false, message: 'HTTPS_PROXY is not an http:// proxy URL' });
    });
    expect(reached).to.deep.equal([]);
  });

  it('ends at its timeout when the proxy never answers, and leaves no socket open', async () => {
    const silent = await tcpListener();
    try {
      for (const url of [plainUrl, secureUrl]) {
        const r = await runProbe('HTTP', url, { proxy: `http://${silent.endpoint}` }, 600);
        expect(r).to.include({ ok: false, message: 'timed out after 600 ms' });
      }
      expect(silent.accepted()).to.equal(2);
      await poll(() => silent.open() === 0, { what: 'the probes to close their sockets', timeoutMs: 3_000 });
    } finally {
      await silent.close();
    }
  });
});
