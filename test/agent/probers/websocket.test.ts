import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { WebSocketServer } from 'ws';
import type { TLSSocket } from 'node:tls';
import { createClientCa, type ClientCa } from '../../fixtures/peers/client-ca.js';
import { selfSignedCertificate } from '../../fixtures/peers/self-signed.js';
import { createTestCa, daysFromNow, type TestCa } from '../../fixtures/peers/test-ca.js';
import { startHttpProxy, type HttpProxy } from '../../support/connect-proxy.js';
import { poll } from '../../support/poll.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

describe('websocket prober', () => {
  let server: http.Server;
  let wss: WebSocketServer;
  let base: string;
  const closes: number[] = [];
  const upgrades: http.IncomingHttpHeaders[] = [];
  before(async () => {
    server = http.createServer((_req, res) => res.writeHead(404).end('not a socket'));
    wss = new WebSocketServer({ server, path: '/live' });
    wss.on('connection', (socket, req) => {
      upgrades.push(req.headers);
      socket.on('close', (code) => closes.push(code));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    wss.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('is GREEN on 101 Switching Protocols, then closes cleanly', async () => {
    const r = await runProbe('WEBSOCKET', `${base}/live`);
    expect(r.ok, r.message).to.equal(true);
    expect(r.details).to.include({ status_code: 101 });
    await poll(() => closes.includes(1000), { what: 'a clean close (1000) at the server' });
  });

  it('sends the headers asked for with the upgrade', async () => {
    upgrades.length = 0;
    expect((await runProbe('WS', `${base}/live`, { headers: { authorization: 'Bearer t0ken' } })).ok).to.equal(true);
    expect(upgrades[0]?.authorization).to.equal('Bearer t0ken');
  });

  it('is RED when the server answers the upgrade with plain HTTP', async () => {
    // ws refuses upgrades outside its path with 400 before the HTTP handler sees them.
    const r = await runProbe('WS', `${base}/elsewhere`);
    expect(r).to.include({ ok: false, message: 'HTTP 400 instead of 101 Switching Protocols' });
  });

  itFailsLikeAnyProtocol('WS', { otherProtocol: 'SSH-2.0-OpenSSH_9.2p1\r\n', otherProtocolMessage: /^not an HTTP server/, endpointFor: (hostPort) => `ws://${hostPort}/` });

  describe('over TLS', () => {
    let tlsServer: https.Server;
    let tlsWss: WebSocketServer;
    let url: string;
    before(async () => {
      tlsServer = https.createServer(selfSignedCertificate());
      tlsWss = new WebSocketServer({ server: tlsServer });
      await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
      url = `wss://127.0.0.1:${(tlsServer.address() as AddressInfo).port}/`;
    });
    after(async () => {
      tlsWss.close();
      tlsServer.closeAllConnections();
      await new Promise((r) => tlsServer.close(r));
    });

    it('is RED for an unverifiable certificate, GREEN with verify_tls false', async () => {
      expect((await runProbe('WEBSOCKET', url)).ok).to.equal(false);
      expect((await runProbe('WEBSOCKET', url, { verify_tls: false })).ok).to.equal(true);
    });
  });
});

describe('websocket prober: client options', () => {
  let ca: TestCa;
  let clientCa: ClientCa;
  let server: https.Server;
  let wss: WebSocketServer;
  let plain: http.Server;
  let plainWss: WebSocketServer;
  let tokens: http.Server;
  let proxy: HttpProxy;
  let base: string;
  let tokenUrl: string;
  let tokenRequests = 0;
  const upgrades: http.IncomingHttpHeaders[] = [];
  before(async function () {
    this.timeout(20_000);
    ca = createTestCa();
    clientCa = createClientCa();
    const pair = ca.issue({ commonName: 'localhost', altNames: 'DNS:localhost,IP:127.0.0.1', notBefore: daysFromNow(-1), notAfter: daysFromNow(30) });
    // Asks for a client certificate without requiring one: /mutual refuses the upgrade without it.
    server = https.createServer({ ...pair, ca: clientCa.cert, requestCert: true, rejectUnauthorized: false });
    const verifyClient = (info: { req: http.IncomingMessage }, done: (ok: boolean, status?: number) => void) => {
      upgrades.push(info.req.headers);
      const path = info.req.url ?? '';
      if (path === '/mutual') return done((info.req.socket as TLSSocket).authorized === true, 403);
      if (path === '/bearer') return done(info.req.headers.authorization === 'Bearer ws-token', 401);
      if (path === '/oauth') return done(info.req.headers.authorization === 'Bearer issued-token', 401);
      done(true);
    };
    wss = new WebSocketServer({ server, verifyClient });
    plain = http.createServer();
    plainWss = new WebSocketServer({ server: plain, verifyClient });
    tokens = http.createServer((_req, res) => {
      tokenRequests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'issued-token', token_type: 'bearer', expires_in: 600 }));
    });
    await Promise.all([server, plain, tokens].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
    base = `wss://127.0.0.1:${(server.address() as AddressInfo).port}`;
    tokenUrl = `http://127.0.0.1:${(tokens.address() as AddressInfo).port}/token`;
    proxy = await startHttpProxy();
  });
  after(async () => {
    wss?.close();
    plainWss?.close();
    await proxy?.close();
    for (const s of [server, plain, tokens]) s?.closeAllConnections();
    await Promise.all([server, plain, tokens].map((s) => s && new Promise((r) => s.close(r))));
    ca?.dispose();
    clientCa?.dispose();
  });
  beforeEach(() => (upgrades.length = 0));

  it('trusts ca_certificate with verify_tls on, and reports the upgrade as observed', async () => {
    expect((await runProbe('WEBSOCKET', `${base}/open`)).ok, 'not without the CA').to.equal(false);
    const r = await runProbe('WEBSOCKET', `${base}/open`, { ca_certificate: ca.cert });
    expect(r.ok, r.message).to.equal(true);
    expect(r.observed?.status).to.equal(101);
    expect(r.observed?.headers).to.include({ upgrade: 'websocket', connection: 'Upgrade' });
  });

  it('presents client_certificate and client_key, and reports a refused upgrade as observed', async () => {
    const refused = await runProbe('WEBSOCKET', `${base}/mutual`, { ca_certificate: ca.cert });
    expect(refused).to.include({ ok: false, message: 'HTTP 403 instead of 101 Switching Protocols' });
    expect(refused.observed?.status).to.equal(403);
    expect(refused.observed?.headers).to.have.property('connection');
    const { cert, key } = clientCa.issue('outpost-agent');
    const r = await runProbe('WEBSOCKET', `${base}/mutual`, { ca_certificate: ca.cert, client_certificate: cert, client_key: key });
    expect(r.ok, r.message).to.equal(true);
  });

  it("sends bearer_token, or an OAuth2 grant's token asked for once, unless the headers set Authorization", async () => {
    expect((await runProbe('WEBSOCKET', `${base}/bearer`, { ca_certificate: ca.cert, bearer_token: 'ws-token' })).ok).to.equal(true);
    expect((await runProbe('WEBSOCKET', `${base}/bearer`, { ca_certificate: ca.cert, bearer_token: 'ws-token', headers: { Authorization: 'Bearer mine' } })).ok).to.equal(false);
    const oauth2 = { token_url: tokenUrl, client_id: 'ws-probe', client_secret: 'shh' };
    for (let i = 0; i < 2; i++) expect((await runProbe('WEBSOCKET', `${base}/oauth`, { ca_certificate: ca.cert, oauth2 })).ok).to.equal(true);
    expect(tokenRequests).to.equal(1);
    expect(upgrades.map((h) => h.authorization)).to.deep.equal(['Bearer ws-token', 'Bearer mine', 'Bearer issued-token', 'Bearer issued-token']);
  });

  it('goes through a proxy by CONNECT, for wss and ws alike', async () => {
    const ws = `ws://127.0.0.1:${(plain.address() as AddressInfo).port}/open`;
    for (const url of [`${base}/open`, ws]) {
      const r = await runProbe('WEBSOCKET', url, { ca_certificate: ca.cert, proxy: proxy.url() });
      expect(r.ok, `${url}: ${r.message}`).to.equal(true);
    }
    expect(proxy.tunnels).to.deep.equal([new URL(base).host, new URL(ws).host]);
    expect(upgrades).to.have.length(2);
  });
});
