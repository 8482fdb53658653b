// SIP for the protocol benchmark: the agent's SIP check against SIPp answering 100 Trying then
// 200 OK (the tests' peer), beside the bare exchange: one hand-built OPTIONS out over a
// connected node:dgram socket, as the prober does, and datagrams in until the final response.
import { optionsRequest } from '../../test/fixtures/peers/sip-wire.js';
import { startSipp } from '../../test/fixtures/peers/sipp.js';
import { bareDatagram } from '../support/bare-datagram.js';

export const checkType = 'SIP';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const sipp = await startSipp({ transport: 'udp', status: 200, reason: 'OK' });
  return { endpoint: sipp.endpoint, options: {}, stop: () => sipp.stop() };
}

const PROVISIONAL = Buffer.from('SIP/2.0 1');

export function bareExchange(endpoint: string, _options: Record<string, unknown>): Promise<void> {
  // sip:127.0.0.1:port
  const port = Number(endpoint.slice(endpoint.lastIndexOf(':') + 1));
  return bareDatagram(
    '127.0.0.1',
    port,
    (localPort) => optionsRequest('127.0.0.1', port, localPort),
    (datagram) => !datagram.subarray(0, PROVISIONAL.length).equals(PROVISIONAL),
  );
}
