// UDP for the protocol benchmark: the agent's UDP check beside the bare exchange, one datagram
// out and one back over a connected node:dgram socket, as the prober does. The peer is the
// tests' node:dgram listener answering every datagram (in the harness's process, whose CPU is
// not counted) rather than their socat echo, which forks a process per datagram.
import dgram from 'node:dgram';
import { decodeEscapes } from '../../shared/src/escapes.js';
import { udpListener } from '../../test/fixtures/peers/net-fixtures.js';

export const checkType = 'UDP';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const listener = await udpListener(Buffer.from('pong\n'));
  return { endpoint: listener.endpoint, options: { send: 'ping\\n' }, stop: () => listener.close() };
}

/** Gives up on a lost datagram, as a check would at its timeout. */
const LOST_MS = 5_000;
/** The datagram, decoded once per options object, as the prober does in prepare. */
const payloads = new WeakMap<Record<string, unknown>, Buffer>();

export function bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> {
  let payload = payloads.get(options);
  if (!payload) {
    payload = typeof options.send === 'string' ? decodeEscapes(options.send) : Buffer.from(String(options.send_hex), 'hex');
    payloads.set(options, payload);
  }
  const colon = endpoint.lastIndexOf(':');
  const datagram = payload;
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    const done = () => {
      clearTimeout(timer);
      socket.close();
      resolve();
    };
    const timer = setTimeout(done, LOST_MS);
    socket.once('message', done);
    socket.once('error', done);
    socket.connect(Number(endpoint.slice(colon + 1)), endpoint.slice(0, colon), () => socket.send(datagram));
  });
}
