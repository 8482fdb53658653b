// TRACEROUTE for the protocol benchmark: the agent's check of the tests' router chain (network
// namespaces: root -> r1 -> r2 -> target, needs root), beside the bare exchange: hand-built ICMP
// echo requests with a TTL growing from 1 until the target answers, then `packets` echo
// requests to it, one after the other. Node has no raw sockets: the bare exchange sends through
// raw-socket, the native add-on under net-ping (the prober's library), without net-ping.
import { createRequire } from 'node:module';
import { createRouterChain } from '../../test/fixtures/peers/router-chain.js';

export const checkType = 'TRACEROUTE';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const chain = createRouterChain();
  return { endpoint: chain.target, options: { max_hops: 30, packets: 5 }, stop: async () => chain.remove() };
}

interface RawSocket {
  on(event: 'message', listener: (buffer: Buffer, source: string) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  send(buffer: Buffer, offset: number, length: number, address: string, before: () => void, after: (err: Error | null) => void): void;
  setOption(level: number, option: number, value: number): void;
  close(): void;
}
interface RawModule {
  createSocket(options: { protocol: number }): RawSocket;
  Protocol: { ICMP: number };
  SocketLevel: { IPPROTO_IP: number };
  SocketOption: { IP_TTL: number };
  createChecksum(buffer: Buffer): number;
  writeChecksum(buffer: Buffer, offset: number, checksum: number): void;
}

const raw = createRequire(import.meta.url)('raw-socket') as RawModule;
/** A hop or an echo unanswered after this long counts as silent (the prober's wait for a 10 s check). */
const SILENT_MS = 1_000;
const MAX_SILENT_HOPS = 3;
const ECHO_REPLY = 0;
const UNREACHABLE = 3;
const TIME_EXCEEDED = 11;
let lastId = 0;

export function bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> {
  const maxHops = Number(options.max_hops ?? 30);
  const packets = Number(options.packets ?? 5);
  // Each exchange its own identifier: concurrent exchanges see each other's replies.
  const id = (lastId = (lastId % 65_534) + 1);
  const socket = raw.createSocket({ protocol: raw.Protocol.ICMP });
  let sequence = 0;
  let waiting: ((type: number | undefined) => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  socket.on('error', () => waiting?.(undefined));
  socket.on('message', (buffer) => {
    const answer = replyTo(buffer, id, sequence);
    if (answer !== undefined) waiting?.(answer);
  });
  /** Sends one echo request with `ttl`; resolves with the ICMP type of its answer, or undefined when silent. */
  const ask = (ttl: number) =>
    new Promise<number | undefined>((resolve) => {
      sequence = (sequence + 1) & 0xffff;
      const request = echoRequest(id, sequence);
      waiting = (type) => {
        clearTimeout(timer);
        waiting = undefined;
        resolve(type);
      };
      timer = setTimeout(() => waiting?.(undefined), SILENT_MS);
      socket.send(request, 0, request.length, endpoint, () => socket.setOption(raw.SocketLevel.IPPROTO_IP, raw.SocketOption.IP_TTL, ttl), (err) => err && waiting?.(undefined));
    });
  return (async () => {
    try {
      let silent = 0;
      for (let ttl = 1; ttl <= maxHops; ttl++) {
        const type = await ask(ttl);
        if (type === ECHO_REPLY || type === UNREACHABLE) break;
        if (type === undefined && ++silent === MAX_SILENT_HOPS) return;
      }
      for (let i = 0; i < packets; i++) await ask(64);
    } finally {
      clearTimeout(timer);
      socket.close();
    }
  })();
}

function echoRequest(id: number, sequence: number): Buffer {
  const packet = Buffer.alloc(16);
  packet[0] = 8;
  packet.writeUInt16BE(id, 4);
  packet.writeUInt16BE(sequence, 6);
  raw.writeChecksum(packet, 2, raw.createChecksum(packet));
  return packet;
}

/** The ICMP type of an IPv4 packet answering our request `id`/`sequence` (an echo reply, or an error quoting the request); undefined for any other. */
function replyTo(buffer: Buffer, id: number, sequence: number): number | undefined {
  const icmp = (buffer[0]! & 0x0f) * 4;
  const type = buffer[icmp];
  // An error quotes the request's IP header, then its first 8 bytes.
  const quoted = type === TIME_EXCEEDED || type === UNREACHABLE ? icmp + 8 + (buffer[icmp + 8]! & 0x0f) * 4 : icmp;
  if (type === undefined || (type !== ECHO_REPLY && quoted === icmp) || buffer.length < quoted + 8) return undefined;
  return buffer.readUInt16BE(quoted + 4) === id && buffer.readUInt16BE(quoted + 6) === sequence ? type : undefined;
}
