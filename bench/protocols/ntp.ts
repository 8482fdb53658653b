// NTP for the protocol benchmark: the agent's NTP check against a real chronyd (the tests'
// peer), beside the bare exchange: one 48-byte client packet out, the reply in, over
// node:dgram as the prober does (it builds its packets by hand too), without its checks.
import { randomFillSync } from 'node:crypto';
import { startChronyd } from '../../test/fixtures/peers/chronyd.js';
import { bareDatagram, hostAndPort } from '../support/bare-datagram.js';

export const checkType = 'NTP';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const chronyd = await startChronyd({ synchronised: true });
  return { endpoint: chronyd.endpoint, options: {}, stop: () => chronyd.stop() };
}


export function bareExchange(endpoint: string, _options: Record<string, unknown>): Promise<void> {
  const packet = Buffer.alloc(48);
  packet[0] = 0x23; // LI 0, VN 4, mode 3 (client)
  randomFillSync(packet, 40, 8); // the transmit timestamp, echoed as the reply's originate
  return bareDatagram(...hostAndPort(endpoint), packet);
}
