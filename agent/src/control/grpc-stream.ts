// The agent's end of a gRPC bidirectional stream, spoken over node:http2 directly: one HTTP/2
// connection per stream, TLS when asked, an HTTP CONNECT proxy when configured, and pings
// that find a peer gone silent. The agent holds one stream for its whole life, so this is all
// of gRPC it needs; grpc-js (channels, balancing, name resolution, compression) kept 2.5 MB
// more resident in an idle agent (P2 in bench/agent-scale.ts).
//
// Like a gRPC call, the stream ends with exactly one status, reported after the stream has
// closed: the server's, or one made from what went wrong (UNAVAILABLE for a network error,
// CANCELLED for cancel()).
import http2 from 'node:http2';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { FrameError, FrameReader, frameMessage, GrpcCode, statusFromHttp, statusInHeaders, type GrpcStatus } from '../grpc/wire.js';
import { openTunnel, proxyFor, type ProxySettings } from './proxy-tunnel.js';

/** TLS to the server, with these trust roots and client certificate; absent: plaintext. */
export type StreamTls = Pick<tls.ConnectionOptions, 'ca' | 'cert' | 'key' | 'checkServerIdentity'>;

export interface GrpcStreamOptions<Out, In> {
  /** HOST:PORT (an IPv6 host in brackets). */
  target: string;
  /** /package.Service/Method */
  path: string;
  tls?: StreamTls;
  proxy?: ProxySettings;
  userAgent: string;
  encode(message: Out): Uint8Array;
  decode(bytes: Uint8Array): In;
  /** A ping this often; no answer within the timeout drops the connection. */
  keepaliveTimeMs?: number;
  keepaliveTimeoutMs?: number;
}

export interface GrpcStreamEvents<In> {
  onMessage(message: In): void;
  /** Once, after the stream closed. */
  onStatus(status: GrpcStatus): void;
}

export interface GrpcStream<Out> {
  write(message: Out): void;
  /** Writes a message already encoded (the same bytes `encode` would give). */
  writeEncoded(bytes: Uint8Array): void;
  /** Half-closes: the server may still answer and then ends the stream. */
  end(): void;
  /** Drops the stream and its connection at once; the status is CANCELLED. */
  cancel(): void;
}

// gRPC's default limit for a received message, which grpc-js applied to the agent before.
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export function openGrpcStream<Out, In>(options: GrpcStreamOptions<Out, In>, events: GrpcStreamEvents<In>): GrpcStream<Out> {
  const { keepaliveTimeMs = 20_000, keepaliveTimeoutMs = 10_000 } = options;
  const host = parseHostPort(options.target)?.host ?? options.target;
  const queued: Buffer[] = [];
  let halfClosed = false;
  let session: http2.ClientHttp2Session | undefined;
  let request: http2.ClientHttp2Stream | undefined;
  let response: http2.IncomingHttpHeaders | undefined;
  let trailers: http2.IncomingHttpHeaders | undefined;
  let failure: GrpcStatus | undefined;
  let networkError: Error | undefined;
  let keepalive: NodeJS.Timeout | undefined;
  let pingTimeout: NodeJS.Timeout | undefined;
  let reported = false;

  const report = (status: GrpcStatus) => {
    if (reported) return;
    reported = true;
    clearInterval(keepalive);
    clearTimeout(pingTimeout);
    session?.destroy();
    // Never from inside write() or cancel(): the caller's state must be settled first.
    process.nextTick(() => events.onStatus(status));
  };
  /** Ends the stream from this side with `status`, whatever the server would have said. */
  const abandon = (status: GrpcStatus) => {
    failure ??= status;
    if (!request) return report(failure);
    request.close(http2.constants.NGHTTP2_CANCEL);
    session?.destroy();
  };

  const reader = new FrameReader((bytes) => {
    if (failure) return;
    let message: In;
    try {
      message = options.decode(bytes);
    } catch (err) {
      return abandon({ code: GrpcCode.INTERNAL, details: `could not read a message of the server: ${(err as Error).message}` });
    }
    events.onMessage(message);
  }, MAX_MESSAGE_BYTES);

  const statusAtClose = (stream: http2.ClientHttp2Stream): GrpcStatus => {
    if (failure) return failure;
    const fromServer = (trailers && statusInHeaders(trailers)) ?? (response && statusInHeaders(response));
    if (fromServer) return fromServer;
    const httpStatus = Number(response?.[':status'] ?? 200);
    if (httpStatus !== 200) return statusFromHttp(httpStatus);
    if (networkError) return { code: GrpcCode.UNAVAILABLE, details: networkError.message };
    if (stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM) return { code: GrpcCode.UNAVAILABLE, details: 'the server refused the stream' };
    if (stream.rstCode === http2.constants.NGHTTP2_ENHANCE_YOUR_CALM) return { code: GrpcCode.RESOURCE_EXHAUSTED, details: 'the server asked the agent to calm down (ENHANCE_YOUR_CALM)' };
    return { code: GrpcCode.INTERNAL, details: `the stream closed without a status (RST_STREAM code ${stream.rstCode ?? 'none'})` };
  };

  const start = (connection?: Duplex) => {
    if (reported) return;
    const url = `${options.tls ? 'https' : 'http'}://${options.target}`;
    const current = http2.connect(url, connection ? { createConnection: () => secure(connection, host, options.tls) } : { ...options.tls });
    session = current;
    // A network error closes the stream too, which reports it; its cause is the better detail.
    current.on('error', (err: Error) => (networkError ??= err));
    const stream = current.request({ ':method': 'POST', ':path': options.path, 'content-type': 'application/grpc', te: 'trailers', 'user-agent': options.userAgent }, { endStream: false });
    request = stream;
    stream.on('response', (headers) => (response = headers));
    stream.on('trailers', (headers) => (trailers = headers));
    stream.on('data', (chunk: Buffer) => {
      // The body of an answer that is not gRPC (an error page) is not messages.
      if (Number(response?.[':status']) !== 200) return;
      try {
        reader.push(chunk);
      } catch (err) {
        if (!(err instanceof FrameError)) throw err;
        abandon({ code: err.code, details: err.message });
      }
    });
    stream.on('error', (err: Error & { cause?: unknown }) => (networkError ??= err.cause instanceof Error ? err.cause : err));
    // The server's end of the stream is the end of the call; close ours too, or the stream
    // would stay half-open until the agent ended its side.
    stream.on('end', () => stream.close());
    stream.on('close', () => report(statusAtClose(stream)));
    for (const frame of queued.splice(0)) stream.write(frame);
    if (halfClosed) stream.end();
    keepalive = setInterval(() => ping(current), keepaliveTimeMs);
  };

  const ping = (current: http2.ClientHttp2Session) => {
    if (current.destroyed || current.closed) return; // its close is on the way
    const timeout = setTimeout(() => current.destroy(new Error(`no answer to a ping within ${keepaliveTimeoutMs} ms`)), keepaliveTimeoutMs);
    pingTimeout = timeout;
    const sent = current.ping((err) => {
      clearTimeout(timeout);
      if (err) networkError ??= err;
    });
    if (!sent) clearTimeout(timeout);
  };

  const proxy = options.proxy && proxyFor(host, options.proxy);
  if (proxy) {
    openTunnel(proxy, options.target).then(
      (socket) => (reported ? socket.destroy() : start(socket)),
      (err: Error) => report({ code: GrpcCode.UNAVAILABLE, details: `through the proxy ${proxy.host}: ${err.message}` }),
    );
  } else {
    start();
  }

  const writeEncoded = (bytes: Uint8Array) => {
    // A message written to a stream that is going is lost, as on any broken stream; the
    // publisher sends again what was not acknowledged.
    if (reported || halfClosed || request?.destroyed) return;
    const frame = frameMessage(bytes);
    if (request) request.write(frame);
    else queued.push(frame);
  };

  return {
    write: (message) => writeEncoded(options.encode(message)),
    writeEncoded,
    end() {
      if (halfClosed) return;
      halfClosed = true;
      request?.end();
    },
    cancel() {
      abandon({ code: GrpcCode.CANCELLED, details: 'cancelled by the agent' });
    },
  };
}

/** The connection through a proxy's tunnel to `host`, wrapped in TLS when the stream asks for it. */
function secure(socket: Duplex, host: string, streamTls: StreamTls | undefined): Duplex {
  if (!streamTls) return socket;
  // `host` is what the certificate is checked against; without it tls.connect checks "localhost".
  // SNI names a host, never an address (as http2.connect does for a connection of its own).
  return tls.connect({ ...streamTls, socket, host, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['h2'] });
}
