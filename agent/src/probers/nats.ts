// NATS: connects with the `nats` client (options.token, or options.username and
// options.password; TLS for a tls:// endpoint, or when the server requires it), then a PING/PONG
// round trip. With options.subject it sends a request carrying options.payload and passes on
// the reply, whose text is the `message` source.
import { ErrorCode, type ConnectionOptions, type NatsConnection } from 'nats';
import { NatsConnectionImpl, setTransportFactory } from 'nats/lib/src/nats-base-client.js';
import { NodeTransport, nodeResolveHost } from 'nats/lib/src/node_transport.js';
import { abortable } from './abortable.js';
import { describeNetworkError } from './network-errors.js';
import type { ProbeDetails, Prober, ProbeResult } from './prober.js';

const DEFAULT_PORT = 4222;

/**
 * The library's transport, except that a connection attempt never outlives options.timeout.
 * The library stops waiting at its timeout but leaves the socket of a server that never sent
 * its INFO open (nats-io/nats.js#64); a check against a silent port would leak one per run.
 */
class BoundedTransport extends NodeTransport {
  override async connect(hp: { hostname: string; port: number; tlsName: string }, options: ConnectionOptions): Promise<void> {
    const guard = setTimeout(() => this.socket?.destroy(), options.timeout);
    try {
      await super.connect(hp, options);
    } finally {
      clearTimeout(guard);
    }
  }
}
const TRANSPORT = { factory: () => new BoundedTransport(), dnsResolveFn: nodeResolveHost };

/**
 * The library's connect() with our transport. connect() installs its own factory on every
 * call (a process-wide setting), so ours is installed again before each connection.
 */
function connectBounded(options: ConnectionOptions): Promise<NatsConnection> {
  setTransportFactory(TRANSPORT);
  return NatsConnectionImpl.connect(options);
}

export function natsProber(): Prober<'NATS'> {
  return {
    family: 'NATS',
    prepare: (target) => {
      const o = target.options;
      const url = new URL(target.endpoint);
      const options: ConnectionOptions = {
        servers: [`${url.hostname}:${url.port || DEFAULT_PORT}`],
        name: 'outpost-probe',
        timeout: target.timeoutMs,
        reconnect: false,
        // The one server named: not the cluster's others it gossips, nor each of its addresses.
        ignoreClusterUpdates: true,
        noRandomize: true,
        resolve: false,
        ...(url.protocol === 'tls:' ? { tls: {} } : {}),
        ...(o.token !== undefined ? { token: o.token } : {}),
        ...(o.username !== undefined ? { user: o.username, pass: o.password ?? '' } : {}),
      };
      const subject = o.subject;
      const payload = new TextEncoder().encode(o.payload ?? '');

      return async (signal): Promise<ProbeResult> => {
        const started = performance.now();
        const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
        const details: ProbeDetails = {};
        const connecting = connectBounded(options);
        let nc: NatsConnection | undefined;
        try {
          nc = await abortable(connecting, signal);
          details.connect_ms = elapsed();
          details.server_version = nc.info?.version ?? 'unknown';
          await abortable(nc.flush(), signal);
          details.ping_ms = Math.round((elapsed() - details.connect_ms) * 100) / 100;
          if (subject === undefined) {
            return { ok: true, responseTimeMs: Math.round(elapsed()), message: `NATS ${details.server_version} PONG in ${Math.round(details.ping_ms)} ms`, details };
          }
          const requestStarted = elapsed();
          // The reply may take what is left of the check's time (the library waits 1 s by default).
          const reply = await abortable(nc.request(subject, payload, { timeout: Math.max(1, target.timeoutMs - requestStarted) }), signal);
          details.request_ms = Math.round((elapsed() - requestStarted) * 100) / 100;
          const message = `NATS reply on ${subject} in ${Math.round(details.request_ms)} ms`;
          return { ok: true, responseTimeMs: Math.round(elapsed()), message, details, observed: { message: reply.string() } };
        } catch (err) {
          const code = (err as { code?: string }).code;
          const timedOut = signal.aborted || code === ErrorCode.Timeout;
          const message = timedOut ? `timed out after ${target.timeoutMs} ms` : describeNatsError(err, code, subject);
          return { ok: false, responseTimeMs: Math.round(elapsed()), message, details };
        } finally {
          if (nc) void nc.close().catch(() => undefined);
          // Still connecting at the deadline: close the connection if it comes.
          else void connecting.then((late) => late.close()).catch(() => undefined);
        }
      };
    },
  };
}

function describeNatsError(err: unknown, code: string | undefined, subject: string | undefined): string {
  const { message, chainedError } = err as { message?: string; chainedError?: { code?: string } };
  switch (code) {
    case ErrorCode.NoResponders:
      return `no responder on subject ${subject}`;
    case ErrorCode.AuthorizationViolation:
      return 'NATS authorization violation';
    case ErrorCode.PermissionsViolation:
      return `NATS permissions violation: ${message}`;
    // The server's -ERR, in its own words.
    case ErrorCode.ProtocolError:
      return `NATS error: ${message?.replace(/^'(.*)'$/, '$1')}`;
    case ErrorCode.ServerOptionNotAvailable:
      return 'the NATS server does not offer TLS';
    case ErrorCode.ConnectionRefused:
      // The library's name for any failed first connection, a socket closed without an error included.
      return chainedError ? describeNetworkError(chainedError) : 'the server closed the connection';
  }
  // What the library says of a first line that is not INFO, or an INFO that is not JSON.
  if (message === 'unexpected response from server') return 'not a NATS server (its first line is not INFO)';
  if (err instanceof SyntaxError) return 'not a NATS server (its INFO is not JSON)';
  return code !== undefined ? `NATS ${message ?? code}` : describeNetworkError(err);
}
