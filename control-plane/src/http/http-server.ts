// The HTTP server under the Koa app, with deliberate limits instead of Node's defaults (which
// hold a request trickling in a byte at a time for 300 s): headers within a few seconds,
// the whole request within HTTP_REQUEST_TIMEOUT_SECONDS, idle keep-alive connections closed
// after 5 s, and at most HTTP_MAX_CONNECTIONS_PER_CLIENT connections open from one address.
// At shutdown it drains within a bound instead of waiting on its clients.
import http, { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { HttpSettings } from '../config.js';

const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/**
 * How often Node looks for requests past their timeouts, as a share of the headers timeout (its
 * default is every 30 s): a request is cut within 1.5 times its timeout, and an idle server wakes
 * for this every few seconds (every 5 s by default), not every second.
 */
const TIMEOUT_CHECKS_PER_HEADERS_TIMEOUT = 2;
/** At shutdown, how long requests in flight may take before their connections are cut. */
export const DRAIN_GRACE_MS = 5_000;
const IDLE_SWEEP_MS = 100;

export function createHttpServer(handler: http.RequestListener, settings: HttpSettings): http.Server {
  const server = http.createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: Math.ceil(Math.min(settings.headersTimeoutMs, settings.requestTimeoutMs) / TIMEOUT_CHECKS_PER_HEADERS_TIMEOUT),
    },
    handler,
  );
  limitConnectionsPerClient(server, settings.maxConnectionsPerClient);
  server.on('clientError', answerUnparsable);
  return server;
}

/**
 * Stops listening and resolves once every connection is gone. Node keeps a keep-alive
 * connection that was busy at close() open, serving whatever its client sends next, until the
 * client leaves; so connections are closed as soon as they fall idle, and the ones still
 * busy after `graceMs` are cut. Upgraded sockets are their owner's to close (ws-feed.ts).
 */
export function closeHttpServer(server: http.Server, graceMs = DRAIN_GRACE_MS): Promise<void> {
  return new Promise((resolve) => {
    const sweeper = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweeper);
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}

const PARSER_ERRORS: Record<string, [status: number, code: string, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'HEADERS_TOO_LARGE', 'the request line and headers are larger than 16 KiB'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'the request did not arrive in time'],
  ERR_HTTP_HEADERS_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'the request headers did not arrive in time'],
};
const MALFORMED: [number, string, string] = [400, 'VALIDATION_FAILED', 'the request is not well-formed HTTP'];

/**
 * A request Node's parser refuses (a raw byte in the target, a bad Content-Length, headers
 * too large, too slow) never reaches the app; it is answered here, in the same JSON as every
 * other error, instead of Node's bare status line.
 */
function answerUnparsable(err: NodeJS.ErrnoException, socket: Duplex): void {
  const response = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, code, message] = PARSER_ERRORS[err.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({ error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Refuses connections from an address that already holds `max`: one client opening
 * thousands of slow connections cannot take every socket the process has. Counts TCP peers,
 * so behind a reverse proxy the limit is the proxy's, and should be raised to match.
 */
function limitConnectionsPerClient(server: http.Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
