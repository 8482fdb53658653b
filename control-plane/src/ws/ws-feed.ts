// The live feed at /api/v1/ws (API.md "WebSocket"), authorized like a REST read: before the
// upgrade completes the credential must be valid (401) and its user a member of the
// organization (403); afterwards every socket is checked again every few seconds (timers that
// run only while a socket is open: an idle control plane wakes for none of this) and closed
// once that right ends: the token expired (4401), the API key was revoked, the member was
// removed or the user deleted (4403). Each socket receives its organization's events only.
// The other replicas learn that this one follows the organization before the upgrade
// completes, so they relay its events from the socket's first moment (followed-organizations.ts).
// At shutdown every socket is told (1001) and the ones that do not finish the closing
// handshake in time are cut, so a stop never waits on a client.
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { AppError } from '../errors.js';
import type { Grant, GrantEnd } from '../features/organizations/organizations.repository.js';
import type { OrganizationAccess } from '../features/organizations/organization-access.js';
import type { EventBus, OrganizationEvent } from '../features/realtime/event-bus.js';
import type { CredentialVerifier } from '../features/auth/credential-verifier.js';
import type { FollowedOrganizations } from '../cluster/followed-organizations.js';
import type { Logger } from '../logger.js';
import { DRAIN_GRACE_MS } from '../http/http-server.js';

export const WS_PATH = '/api/v1/ws';
const PING_INTERVAL_MS = 30_000;
const RECHECK_INTERVAL_MS = 2_000;
/** An upgrade authorized but never completed (the client went away) stops counting as a follower after this. */
const ADMISSION_TIMEOUT_MS = 10_000;

/** The server is shutting down (RFC 6455). */
const CLOSE_GOING_AWAY = 1001;
/** Close codes in the application range, after the HTTP statuses they stand for. */
const CLOSE_EXPIRED = 4401;
const CLOSE_REVOKED = 4403;
const REVOKED_REASONS: Record<GrantEnd, string> = {
  api_key_revoked: 'the API key was revoked',
  membership_ended: 'no longer a member of this organization',
  session_ended: 'the session has ended',
};

export interface WsFeed {
  /** Options for the ws server: path and the pre-upgrade authorization. */
  serverOptions: {
    path: string;
    verifyClient(info: { req: IncomingMessage }, done: (ok: boolean, code?: number, message?: string) => void): void;
  };
  /** koa-websocket middleware: registers the accepted socket. */
  accept(ctx: { websocket: WebSocket; req: IncomingMessage }): void;
  /** Closes every socket, cutting those that have not closed after the drain grace; resolves when all are gone. */
  close(): Promise<void>;
  clients(): number;
  /** Has a socket of this organization? Events of the others need not reach this process. */
  follows(organizationId: string): boolean;
  /** Calls `listener` whenever a socket opens while none was open. */
  onWatched(listener: () => void): void;
}

export interface WsFeedDeps {
  verify: CredentialVerifier;
  access: Pick<OrganizationAccess, 'resolveReadable' | 'endedGrants'>;
  bus: EventBus;
  followers: Pick<FollowedOrganizations, 'hold' | 'release'>;
  logger: Logger;
  pingIntervalMs?: number;
  recheckIntervalMs?: number;
}

interface Subscription {
  grant: Grant;
  expiresAt: number | null;
}

interface Admission extends Subscription {
  /** Releases the follow held for the socket if it never arrives. */
  expiry: NodeJS.Timeout;
}

export function createWsFeed({ verify, access, bus, followers, logger, pingIntervalMs = PING_INTERVAL_MS, recheckIntervalMs = RECHECK_INTERVAL_MS }: WsFeedDeps): WsFeed {
  const admitted = new WeakMap<IncomingMessage, Admission>();
  const subscriptions = new Map<WebSocket, Subscription>();
  const byOrganization = new Map<string, Set<WebSocket>>();
  const alive = new WeakSet<WebSocket>();
  let closed = false;

  const unsubscribe = bus.subscribe((event: OrganizationEvent) => {
    const sockets = byOrganization.get(event.organizationId);
    if (!sockets) return;
    const frame = JSON.stringify({ type: event.type, data: event.data });
    for (const socket of sockets) if (socket.readyState === socket.OPEN) socket.send(frame);
  });

  // Sockets that did not answer the previous ping are gone (half-open TCP); drop them.
  const ping = () => {
    for (const socket of subscriptions.keys()) {
      if (!alive.has(socket)) {
        socket.terminate();
        continue;
      }
      alive.delete(socket);
      socket.ping();
    }
  };

  let rechecking = false;
  const recheck = async () => {
    if (rechecking || subscriptions.size === 0) return;
    rechecking = true;
    try {
      const now = Date.now();
      const open = [...subscriptions].filter(([socket, s]) => {
        if (s.expiresAt === null || s.expiresAt > now) return true;
        socket.close(CLOSE_EXPIRED, 'the token has expired');
        return false;
      });
      const ended = await access.endedGrants(open.map(([, s]) => s.grant));
      open.forEach(([socket], i) => {
        const reason = ended[i];
        if (reason) socket.close(CLOSE_REVOKED, REVOKED_REASONS[reason]);
      });
    } catch (err) {
      // The database is away: sockets stay until it can say otherwise (REST answers 503 meanwhile).
      logger.warn({ err }, 'could not re-check WebSocket access');
    } finally {
      rechecking = false;
    }
  };
  // Both run while at least one socket is open.
  let pinger: NodeJS.Timeout | undefined;
  let rechecker: NodeJS.Timeout | undefined;
  const watchedListeners: (() => void)[] = [];
  const watch = () => {
    if (pinger) return;
    for (const listener of watchedListeners) listener();
    pinger = setInterval(ping, pingIntervalMs);
    pinger.unref();
    rechecker = setInterval(() => void recheck(), recheckIntervalMs);
    rechecker.unref();
  };
  const unwatch = () => {
    clearInterval(pinger);
    clearInterval(rechecker);
    pinger = rechecker = undefined;
  };

  const leave = (socket: WebSocket, organizationId: string) => {
    if (!subscriptions.delete(socket)) return;
    followers.release(organizationId);
    const sockets = byOrganization.get(organizationId);
    sockets?.delete(socket);
    if (sockets?.size === 0) byOrganization.delete(organizationId);
    if (subscriptions.size === 0) unwatch();
  };

  return {
    serverOptions: {
      path: WS_PATH,
      verifyClient(info, done) {
        if (closed) return done(false, 503, 'Service Unavailable');
        const token = new URL(info.req.url ?? '', 'http://localhost').searchParams.get('token');
        if (!token) return done(false, 401, 'Unauthorized');
        verify(token)
          .then(async (actor) => {
            const organizationId = await access.resolveReadable(actor);
            if (closed) return done(false, 503, 'Service Unavailable');
            await followers.hold(organizationId);
            const expiry = setTimeout(() => admitted.delete(info.req) && followers.release(organizationId), ADMISSION_TIMEOUT_MS);
            expiry.unref();
            admitted.set(info.req, {
              grant: { userId: actor.userId, organizationId, apiKeyId: actor.apiKey?.id ?? null, sessionId: actor.sessionId ?? null },
              expiresAt: actor.expiresAt?.getTime() ?? null,
              expiry,
            });
            done(true);
          })
          .catch((err) => {
            if (err instanceof AppError && err.code === 'FORBIDDEN') return done(false, 403, 'Forbidden');
            if (err instanceof AppError && err.code === 'UNAUTHENTICATED') return done(false, 401, 'Unauthorized');
            logger.warn({ err }, 'could not authorize a WebSocket upgrade');
            done(false, 503, 'Service Unavailable');
          });
      },
    },

    accept({ websocket, req }) {
      websocket.on('error', (err) => logger.debug({ err }, 'websocket error'));
      const admission = admitted.get(req);
      if (!admission) return websocket.close(CLOSE_REVOKED, 'unauthorized');
      admitted.delete(req);
      clearTimeout(admission.expiry);
      // Authorized before the shutdown began, completed after it.
      if (closed) {
        followers.release(admission.grant.organizationId);
        return void goAway([websocket]);
      }
      const subscription: Subscription = { grant: admission.grant, expiresAt: admission.expiresAt };
      const { organizationId } = subscription.grant;
      const sockets = byOrganization.get(organizationId) ?? new Set();
      byOrganization.set(organizationId, sockets);
      sockets.add(websocket);
      subscriptions.set(websocket, subscription);
      watch();
      alive.add(websocket);
      websocket.on('pong', () => alive.add(websocket));
      websocket.on('close', () => leave(websocket, organizationId));
    },

    close() {
      closed = true;
      unsubscribe();
      unwatch();
      return goAway([...subscriptions.keys()]);
    },

    clients: () => subscriptions.size,
    follows: (organizationId) => byOrganization.has(organizationId),
    onWatched: (listener) => void watchedListeners.push(listener),
  };
}

/** Starts the closing handshake on each socket and cuts the ones still open after the drain grace. */
function goAway(sockets: WebSocket[]): Promise<void> {
  const gone = sockets.map(
    (socket) =>
      new Promise<void>((resolve) => {
        if (socket.readyState === socket.CLOSED) return resolve();
        socket.once('close', () => resolve());
        socket.close(CLOSE_GOING_AWAY, 'server shutting down');
      }),
  );
  const cut = setTimeout(() => sockets.forEach((socket) => socket.terminate()), DRAIN_GRACE_MS);
  return Promise.all(gone).then(() => clearTimeout(cut));
}
