// DOMAIN for the protocol benchmark: the agent's check of a domain on the tests' RDAP server
// (node:http on 127.0.0.1, in the harness's process), beside the bare exchange: one hand-written
// HTTP/1.1 GET of {rdap_url}domain/{name} over node:net, its JSON parsed and the expiration event
// read. options.rdap_url names the server: the benchmarked agent keeps IANA's bootstrap file,
// which is not fetched then (and the bootstrap is fetched once a day, not per check).
import net from 'node:net';
import { startRdapServer } from '../../test/fixtures/peers/rdap-server.js';

export const checkType = 'DOMAIN';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const peer = await startRdapServer();
  return { endpoint: 'fresh.rdaptest', options: { rdap_url: peer.base }, stop: () => peer.close() };
}

/** Gives up on a silent server, as a check would at its timeout. */
const SILENT_MS = 5_000;
/** The request, encoded once per options object, as the prober keeps its request per target. */
const requests = new WeakMap<Record<string, unknown>, { url: URL; bytes: Buffer }>();

export function bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> {
  let request = requests.get(options);
  if (!request) {
    const url = new URL(`domain/${endpoint}`, String(options.rdap_url));
    const bytes = Buffer.from(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/rdap+json\r\nConnection: close\r\n\r\n`, 'latin1');
    requests.set(options, (request = { url, bytes }));
  }
  const { url, bytes } = request;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(url.port || 80), url.hostname, () => socket.write(bytes));
    const timer = setTimeout(() => socket.destroy(), SILENT_MS);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      expirationOf(Buffer.concat(chunks).toString('utf8'));
      resolve();
    });
  });
}

/** The expiration event's date of the RDAP answer (the node:http peer sends it whole, without chunking, under Connection: close). */
function expirationOf(response: string): string | undefined {
  try {
    const domain = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { events?: { eventAction: string; eventDate: string }[] };
    return domain.events?.find((e) => e.eventAction === 'expiration')?.eventDate;
  } catch {
    return undefined;
  }
}
