// TCP and TELNET: the port accepts a connection. With options.send, or assertions on the body,
// the probe also converses: it writes `send` and reads back what the `body` source is judged on.
// Without either it only connects, on a path kept as cheap as a bare connect (P1).
import net from 'node:net';
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { decodeEscapes } from '../../../shared/src/escapes.js';
import { converse } from './conversation.js';
import { describeNetworkError } from './network-errors.js';
import type { Probe, Prober, ProbeResult, ProbeTarget } from './prober.js';
import { bodyText } from './body-text.js';

/** What a conversation reads at most; the rest is left unread. */
const MAX_BODY_BYTES = 4096;
/**
 * Silence that ends a reply once it has started. A reply written at once arrives well within
 * it; the wait is not counted in the response time.
 */
const QUIET_MS = 200;

export function tcpProber(): Prober<'TCP'> {
  return {
    family: 'TCP',
    prepare(target) {
      const { send, assertions } = target.options;
      const readsBody = assertsOn(assertions, 'body');
      if (send !== undefined || readsBody) return conversation(target, send, readsBody);
      const address = parseHostPort(target.endpoint);
      if (!address) return () => Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      const { host, port } = address;
      // An IP address needs no lookup, so there is no 'lookup' event to listen for.
      const literal = net.isIP(host) !== 0;
      return (signal) => {
        const started = performance.now();
        return new Promise<ProbeResult>((resolve) => {
          const socket = net.connect({ host, port });
          let lookupMs: number | undefined;
          const finish = (ok: boolean, message?: string) => {
            socket.destroy();
            signal.removeEventListener('abort', onAbort);
            const elapsed = Math.round(performance.now() - started);
            const details: Record<string, number> = ok ? { connect_ms: elapsed - (lookupMs ?? 0) } : {};
            if (lookupMs !== undefined) details.dns_ms = lookupMs;
            resolve({ ok, responseTimeMs: elapsed, message: message ?? `connected in ${elapsed} ms`, details });
          };
          const onAbort = () => finish(false, `timed out after ${target.timeoutMs} ms`);
          signal.addEventListener('abort', onAbort, { once: true });
          if (!literal) socket.once('lookup', () => (lookupMs = Math.round(performance.now() - started)));
          socket.once('connect', () => finish(true));
          socket.once('error', (err) => finish(false, describeNetworkError(err)));
        });
      };
    },
  };
}

/**
 * Connects, writes `send` at once (for a server that speaks first, leave it out: the greeting
 * is what is read), then reads. Before the first byte, with assertions on the body the read
 * lasts until the deadline (a slow greeting is still an answer); without, it is a courtesy
 * that waits QUIET_MS. What was read passes: the assertions judge it.
 */
function conversation(target: ProbeTarget<'TCP'>, send: string | undefined, readsBody: boolean): Probe {
  let bytes: Buffer | undefined;
  try {
    bytes = send === undefined ? undefined : decodeEscapes(send);
  } catch (err) {
    // The control plane refuses such text; an older one may not have.
    return () => Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad send option: ${(err as Error).message}`, details: {} });
  }
  return (signal) =>
    converse(target, signal, async (s, observed) => {
      if (bytes) s.write(bytes);
      const sentMs = s.elapsed();
      const reply = await s.readUntilQuiet(MAX_BODY_BYTES, QUIET_MS, readsBody ? undefined : QUIET_MS);
      observed.body = bodyText(reply.bytes);
      const connected = `connected in ${Math.round(s.timings.connect_ms ?? sentMs)} ms`;
      if (reply.lastByteMs === undefined) return { ok: true, message: `${connected}, nothing read`, responseTimeMs: sentMs };
      const replyMs = Math.round(reply.lastByteMs);
      return { ok: true, message: `${connected}, read ${reply.bytes.length} bytes in ${replyMs} ms`, details: { reply_ms: replyMs }, responseTimeMs: replyMs };
    });
}
