// UDP for the protocol benchmark: the agent's UDP check beside the bare exchange, one datagram
// out and one back over a connected node:dgram socket, as the prober does. The peer is the
// tests' node:dgram listener answering every datagram (in the harness's process, whose CPU is
// not counted) rather than their socat echo, which forks a process per datagram.
import { decodeEscapes } from '../../shared/src/escapes.js';
import { udpListener } from '../../test/fixtures/peers/net-fixtures.js';
import { bareDatagram, hostAndPort } from '../support/bare-datagram.js';

export const checkType = 'UDP';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const listener = await udpListener(Buffer.from('pong\n'));
  return { endpoint: listener.endpoint, options: { send: 'ping\\n' }, stop: () => listener.close() };
}

/** The datagram, decoded once per options object, as the prober does in prepare. */
const payloads = new WeakMap<Record<string, unknown>, Buffer>();

export function bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> {
  let payload = payloads.get(options);
  if (!payload) {
    payload = typeof options.send === 'string' ? decodeEscapes(options.send) : Buffer.from(String(options.send_hex), 'hex');
    payloads.set(options, payload);
  }
  return bareDatagram(...hostAndPort(endpoint), payload);
}
