// NATS for the protocol benchmark: the agent's NATS check against a nats-server requiring a
// token (the tests' peer), beside the bare exchange over node:net with hand-written protocol
// lines: the server's INFO, then CONNECT and PING answered by PONG (what the `nats` client
// does to connect), and the probe's own PING/PONG round trip, then the socket is closed.
import { startNatsServer } from '../../test/fixtures/peers/nats-server.js';
import { bareConversation } from '../support/bare-conversation.js';

export const checkType = 'NATS';

const TOKEN = 'bench-token';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const server = await startNatsServer({ token: TOKEN });
  return { endpoint: server.endpoint, options: { token: TOKEN }, stop: () => server.stop() };
}

/** The connect line, made once per options object, as the prober makes its options in prepare. */
const connectLines = new WeakMap<Record<string, unknown>, string>();

export function bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> {
  let connectLine = connectLines.get(options);
  if (!connectLine) {
    connectLine = `CONNECT ${JSON.stringify({ verbose: false, pedantic: false, name: 'bare', auth_token: options.token })}\r\nPING\r\n`;
    connectLines.set(options, connectLine);
  }
  const url = new URL(endpoint);
  const hello = connectLine;
  // What the next line must be: the INFO, the PONG of the connect, the PONG of the round trip.
  let awaiting: 'INFO' | 'PONG' | 'last PONG' = 'INFO';
  let received = '';
  return bareConversation(url.hostname, Number(url.port), undefined, (chunk, talk) => {
    received += chunk.toString('latin1');
    for (let end = received.indexOf('\r\n'); end >= 0; end = received.indexOf('\r\n')) {
      const line = received.slice(0, end);
      received = received.slice(end + 2);
      if (awaiting === 'INFO' && line.startsWith('INFO ')) {
        talk.write(hello);
        awaiting = 'PONG';
      } else if (awaiting === 'PONG' && line === 'PONG') {
        talk.write('PING\r\n');
        awaiting = 'last PONG';
      } else if (line === 'PONG' || line.startsWith('-ERR') || awaiting === 'INFO') {
        return talk.done();
      }
    }
  });
}
