import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { WebSocketServer } from 'ws';
import { selfSignedCertificate } from '../../fixtures/peers/self-signed.js';
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
