// UDP: sends one datagram (options.send, with escapes, or options.send_hex) to host:port and is
// GREEN when one comes back; its first 4 KiB are the `body` (text) and `body_hex` sources.
// UDP has no handshake, so silence is all a filtered port or a service that ignores the
// datagram gives: that is RED at the timeout. A closed port is told at once (ICMP port
// unreachable, through the connected socket).
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { decodeEscapes } from '../../../shared/src/escapes.js';
import { datagramPeer, exchangeDatagram } from './datagram.js';
import type { Prober, ProbeDetails, ProbeResult } from './prober.js';
import { bodyText } from './body-text.js';

/** What the body sources see of the reply, as for a TCP conversation. */
const MAX_BODY_BYTES = 4096;
const HEX = /^(?:[0-9a-f]{2})+$/i;

export function udpProber(): Prober<'UDP'> {
  return {
    family: 'UDP',
    prepare(target) {
      const address = parseHostPort(target.endpoint);
      if (!address) return fails(`bad endpoint ${target.endpoint}`);
      let request: Buffer;
      try {
        request = payload(target.options.send, target.options.send_hex);
      } catch (err) {
        // The control plane refuses such options; an older one may not have.
        return fails(`bad send option: ${(err as Error).message}`);
      }
      const peer = datagramPeer(address.host, address.port);
      return async (signal): Promise<ProbeResult> => {
        const started = performance.now();
        const exchange = await exchangeDatagram(peer, request, signal, target.timeoutMs);
        const responseTimeMs = Math.round(performance.now() - started);
        const details: ProbeDetails = exchange.dnsMs === undefined ? {} : { dns_ms: exchange.dnsMs };
        if (!exchange.ok) return { ok: false, responseTimeMs, message: exchange.message, details };
        const { reply } = exchange;
        details.response_ms = Math.round((exchange.receivedAt - exchange.sentAt) * 10) / 10;
        details.bytes = reply.length;
        const seen = reply.subarray(0, MAX_BODY_BYTES);
        const observed = { body: bodyText(seen), body_hex: seen.toString('hex') };
        return { ok: true, responseTimeMs, message: `UDP reply of ${reply.length} bytes in ${details.response_ms} ms`, details, observed };
      };
    },
  };
}

function fails(message: string) {
  return () => Promise.resolve<ProbeResult>({ ok: false, responseTimeMs: 0, message, details: {} });
}

/** The datagram to send; the options schema makes sure exactly one of the two is given. */
function payload(send: string | undefined, sendHex: string | undefined): Buffer {
  if (send !== undefined) return decodeEscapes(send);
  if (sendHex === undefined) throw new Error('give send or send_hex');
  if (!HEX.test(sendHex)) throw new Error('send_hex is pairs of hex digits');
  return Buffer.from(sendHex, 'hex');
}
