// One request datagram and its reply, for the probers that speak a UDP protocol by hand (NTP,
// UDP). The socket is connected: a closed port's ICMP port unreachable then comes back as
// ECONNREFUSED instead of silence, and only datagrams from the target are read.
import dgram from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import { abortable } from './abortable.js';
import { describeNetworkError } from './network-errors.js';
import type { ProbeSignal } from './probe-signal.js';

export interface DatagramPeer {
  host: string;
  port: number;
  /** 4 or 6 for an IP address; 0 for a name, looked up on every exchange (its address may move). */
  family: number;
}

export function datagramPeer(host: string, port: number): DatagramPeer {
  const bare = withoutBrackets(host);
  return { host: bare, port, family: isIP(bare) };
}

/** Times are performance.now() readings. */
export type Exchange =
  | { ok: true; reply: Buffer; sentAt: number; receivedAt: number; dnsMs?: number }
  | { ok: false; message: string; dnsMs?: number };

/** Whether a datagram from the peer answers `request`; one that does not (a late reply to another) is skipped. */
export type AnswerTest = (reply: Buffer, request: Buffer) => boolean;

const anyDatagram: AnswerTest = () => true;

/**
 * Sends `request` and resolves with the first datagram that answers it, or why none came: an
 * error, or the signal's abort (the socket is closed on every path).
 */
export async function exchangeDatagram(peer: DatagramPeer, request: Buffer, signal: ProbeSignal, timeoutMs: number, answers: AnswerTest = anyDatagram): Promise<Exchange> {
  let { host: address, family } = peer;
  let dnsMs: number | undefined;
  if (family === 0) {
    const started = performance.now();
    try {
      ({ address, family } = await abortable(lookup(peer.host), signal));
    } catch (err) {
      return { ok: false, message: signal.aborted ? `timed out after ${timeoutMs} ms` : describeNetworkError(err) };
    }
    dnsMs = Math.round(performance.now() - started);
  }
  if (signal.aborted) return { ok: false, message: `timed out after ${timeoutMs} ms`, dnsMs };
  return new Promise<Exchange>((resolve) => {
    const socket = dgram.createSocket(family === 6 ? 'udp6' : 'udp4');
    let sentAt = 0;
    let skipped = 0;
    let settled = false;
    const finish = (exchange: Exchange) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      socket.close();
      resolve(dnsMs === undefined ? exchange : { ...exchange, dnsMs });
    };
    const onAbort = () => finish({ ok: false, message: noReply(timeoutMs, skipped) });
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('message', (reply) => {
      const receivedAt = performance.now();
      if (answers(reply, request)) finish({ ok: true, reply, sentAt, receivedAt });
      else skipped++;
    });
    socket.once('error', (err) => finish({ ok: false, message: describeDatagramError(err) }));
    socket.connect(peer.port, address, () => {
      sentAt = performance.now();
      socket.send(request);
    });
  });
}

function noReply(timeoutMs: number, skipped: number): string {
  if (skipped === 0) return `no reply within ${timeoutMs} ms`;
  return `no reply within ${timeoutMs} ms (ignored ${skipped} datagram${skipped > 1 ? 's' : ''} answering another request)`;
}

function describeDatagramError(err: Error): string {
  // What a closed UDP port answers; saying so tells it from a refused TCP connect.
  if ((err as { code?: string }).code === 'ECONNREFUSED') return 'connection refused (ICMP port unreachable)';
  return describeNetworkError(err);
}
