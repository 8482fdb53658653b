// A stop never waits on a client: a keep-alive connection closes once its answer is sent, a
// request that never ends is cut after the grace, a WebSocket client that never answers the
// closing handshake is cut, and an upgrade authorized before the stop but completed after it
// is refused.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import WebSocket, { WebSocketServer } from 'ws';
import { closeHttpServer } from '../../control-plane/src/http/http-server.js';
import { createLogger } from '../../control-plane/src/logger.js';
import { createWsFeed } from '../../control-plane/src/ws/ws-feed.js';
import { NO_OTHER_FOLLOWERS } from '../../control-plane/src/cluster/followed-organizations.js';
import type { Actor } from '../../control-plane/src/features/auth/actor.js';
import { startTestControlPlane } from '../support/control-plane-harness.js';

function listening(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('shutdown', () => {
  describe('closeHttpServer', () => {
    it('answers a request in flight, then closes its keep-alive connection instead of keeping it for the client', async () => {
      const answer = deferred<void>();
      const arrived = deferred<void>();
      // Node's own default would keep the idle connection for ten minutes.
      const server = http.createServer({ keepAliveTimeout: 600_000 }, (_req, res) => {
        arrived.resolve();
        void answer.promise.then(() => res.end('done'));
      });
      const port = await listening(server);
      const agent = new http.Agent({ keepAlive: true });
      try {
        let socketClosed!: Promise<void>;
        const response = new Promise<string>((resolve, reject) => {
          const req = http.get({ host: '127.0.0.1', port, agent }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve(body));
          });
          req.on('error', reject);
          socketClosed = new Promise((closed) => req.once('socket', (socket) => socket.once('close', () => closed())));
        });
        await arrived.promise;
        const closed = closeHttpServer(server);
        answer.resolve();
        expect(await response).to.equal('done');
        await closed;
        await socketClosed;
      } finally {
        agent.destroy();
        server.closeAllConnections();
      }
    });

    it('cuts a request still unanswered after the grace', async () => {
      const server = http.createServer(() => undefined);
      const port = await listening(server);
      const failed = new Promise<string>((resolve) => {
        const req = http.get({ host: '127.0.0.1', port }, () => resolve('answered'));
        req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
      });
      await new Promise<void>((resolve) => server.once('request', () => resolve()));
      await closeHttpServer(server, 200);
      expect(await failed).to.equal('ECONNRESET');
    });
  });

  describe('the WebSocket feed', () => {
    it('refuses with 503 an upgrade whose authorization ends after the stop began', async () => {
      const verified = deferred<Actor>();
      const feed = createWsFeed({
        verify: () => verified.promise,
        access: { resolveReadable: async (actor) => actor.organizationId, endedGrants: async () => [] },
        bus: { subscribe: () => () => undefined, publish: () => undefined } as never,
        followers: NO_OTHER_FOLLOWERS,
        logger: createLogger('silent'),
      });
      const server = http.createServer();
      const wss = new WebSocketServer({ ...feed.serverOptions, server });
      wss.on('connection', (websocket, req) => feed.accept({ websocket, req }));
      const port = await listening(server);
      try {
        const client = new WebSocket(`ws://127.0.0.1:${port}/api/v1/ws?token=t`);
        client.on('error', () => undefined);
        const outcome = new Promise<number | 'open'>((resolve) => {
          client.once('open', () => resolve('open'));
          client.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        });
        await new Promise<void>((resolve) => server.once('upgrade', () => setImmediate(resolve)));
        const closed = feed.close();
        verified.resolve({ userId: 'u1', email: 'u1@example.com', organizationId: 'o1' });
        expect(await outcome).to.equal(503);
        await closed;
        client.terminate();
      } finally {
        wss.close();
        server.closeAllConnections();
        server.close();
      }
    });

    it("cuts a client that never answers the closing handshake, so the control plane's stop ends", async function () {
      this.timeout(25_000);
      const cp = await startTestControlPlane();
      let stopped = false;
      const raw = net.connect(cp.running.httpPort, '127.0.0.1');
      try {
        const user = await cp.api.newUser('ws-silent');
        let received = Buffer.alloc(0);
        raw.on('data', (d) => (received = Buffer.concat([received, d])));
        raw.on('error', () => undefined);
        const ended = new Promise<void>((resolve) => raw.once('close', () => resolve()));
        raw.write(
          `GET /api/v1/ws?token=${encodeURIComponent(user.token)} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
            'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
        );
        for (let i = 0; i < 100 && !received.includes('\r\n\r\n'); i++) await new Promise((r) => setTimeout(r, 50));
        expect(received.toString('latin1')).to.match(/^HTTP\/1\.1 101 /);
        const head = received.indexOf('\r\n\r\n') + 4;

        await cp.stop();
        stopped = true;
        await ended;
        // A close frame with 1001 (going away) came first; the client never answered it.
        const frame = received.subarray(head);
        expect(frame[0]).to.equal(0x88);
        expect(frame.readUInt16BE(2)).to.equal(1001);
      } finally {
        raw.destroy();
        if (!stopped) await cp.stop();
      }
    });
  });
});
