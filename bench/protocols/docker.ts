// DOCKER for the protocol benchmark: the agent's check beside the bare exchange, one
// `GET /containers/web/json` written to the API's unix socket and its answer read to the end.
// The peer is the tests' Podman API service (`podman system service`, its own process, whose CPU
// is not counted) with one running container; it needs root, as the tests do.
import net from 'node:net';
import { startPodman } from '../../test/fixtures/peers/podman.js';

export const checkType = 'DOCKER';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const peer = await startPodman();
  try {
    await peer.runContainer('web', [], ['sleep', '3600']);
  } catch (err) {
    await peer.stop();
    throw err;
  }
  return { endpoint: 'web', options: { socket: peer.socket }, stop: () => peer.stop() };
}

/** The request, made once per endpoint, as the prober does in prepare. */
const requests = new Map<string, Buffer>();

export function bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> {
  let request = requests.get(endpoint);
  if (!request) {
    request = Buffer.from(`GET /containers/${endpoint}/json HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n\r\n`, 'latin1');
    requests.set(endpoint, request);
  }
  return new Promise((resolve) => {
    // The API closes the connection after its answer (Connection: close): that is the end of the exchange.
    const socket = net.connect({ path: String(options.socket) });
    socket.on('data', () => undefined);
    socket.once('close', () => resolve());
    socket.once('error', () => socket.destroy());
    socket.write(request);
  });
}
