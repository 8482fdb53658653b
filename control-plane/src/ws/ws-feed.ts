// The live feed at /api/v1/ws (API.md "WebSocket"): the token is checked before the
// upgrade completes (401 otherwise); each socket receives its organization's events only.
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { EventBus, OrganizationEvent } from '../features/realtime/event-bus.js';
import type { CredentialVerifier } from '../http/authenticate.js';
import type { Logger } from '../logger.js';

export const WS_PATH = '/api/v1/ws';
const PING_INTERVAL_MS = 30_000;

export interface WsFeed {
  /** Options for koa-websocket's ws server: path and the pre-upgrade token check. */
  serverOptions: {
    path: string;
    verifyClient(info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void): void;
  };
  /** koa-websocket middleware: registers the accepted socket. */
  accept(ctx: { websocket: WebSocket; req: IncomingMessage }): void;
  close(): void;
  clients(): number;
}

export function createWsFeed(verify: CredentialVerifier, bus: EventBus, logger: Logger, pingIntervalMs = PING_INTERVAL_MS): WsFeed {
  const organizationOf = new WeakMap<IncomingMessage, string>();
  const byOrganization = new Map<string, Set<WebSocket>>();
  const alive = new WeakSet<WebSocket>();

  const unsubscribe = bus.subscribe((event: OrganizationEvent) => {
    const sockets = byOrganization.get(event.organizationId);
    if (!sockets) return;
    const frame = JSON.stringify({ type: event.type, data: event.data });
    for (const socket of sockets) if (socket.readyState === socket.OPEN) socket.send(frame);
  });

  // Sockets that did not answer the previous ping are gone (half-open TCP); drop them.
  const pinger = setInterval(() => {
    for (const sockets of byOrganization.values()) {
      for (const socket of sockets) {
        if (!alive.has(socket)) {
          socket.terminate();
          continue;
        }
        alive.delete(socket);
        socket.ping();
      }
    }
  }, pingIntervalMs);
  pinger.unref();

  return {
    serverOptions: {
      path: WS_PATH,
      verifyClient(info, done) {
        const token = new URL(info.req.url ?? '', 'http://localhost').searchParams.get('token');
        if (!token) return done(false, 401, 'Unauthorized');
        verify(token).then(
          (actor) => {
            organizationOf.set(info.req, actor.organizationId);
            done(true);
          },
          () => done(false, 401, 'Unauthorized'),
        );
      },
    },

    accept({ websocket, req }) {
      const organizationId = organizationOf.get(req);
      if (!organizationId) return websocket.close(1008, 'unauthorized');
      const sockets = byOrganization.get(organizationId) ?? new Set();
      byOrganization.set(organizationId, sockets);
      sockets.add(websocket);
      alive.add(websocket);
      websocket.on('pong', () => alive.add(websocket));
      websocket.on('close', () => {
        sockets.delete(websocket);
        if (sockets.size === 0) byOrganization.delete(organizationId);
      });
      websocket.on('error', (err) => logger.debug({ err }, 'websocket error'));
    },

    close() {
      unsubscribe();
      clearInterval(pinger);
      for (const sockets of byOrganization.values()) for (const socket of sockets) socket.close(1001, 'server shutting down');
    },

    clients: () => [...byOrganization.values()].reduce((n, s) => n + s.size, 0),
  };
}
