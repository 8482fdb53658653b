// AMQP for the protocol benchmark: the agent's check against the machine's RabbitMQ (the tests'
// peer, guest/guest) reading the counts of a queue with 2 messages, beside the bare exchange over
// node:net with hand-built AMQP 0-9-1 frames: the protocol header, Start-Ok (PLAIN), Tune-Ok,
// Open, Channel.Open, a passive Queue.Declare, then Connection.Close and its Close-Ok.
// startPeer makes the queue with amqplib, the prober's library: that is setup, not measured.
import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import { bareConversation } from '../support/bare-conversation.js';

export const checkType = 'AMQP';

const RABBITMQ = 'amqp://127.0.0.1:5672';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const queue = `outpost-bench-${randomBytes(6).toString('hex')}`;
  const admin = await amqp.connect(RABBITMQ);
  const channel = await admin.createConfirmChannel();
  await channel.assertQueue(queue);
  channel.sendToQueue(queue, Buffer.from('one'));
  channel.sendToQueue(queue, Buffer.from('two'));
  await channel.waitForConfirms();
  return {
    endpoint: RABBITMQ,
    options: { queue },
    async stop() {
      await channel.deleteQueue(queue);
      await admin.close();
    },
  };
}

const PROTOCOL_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1]);
const METHOD_FRAME = 1;
const FRAME_END = 0xce;
/** class << 16 | method, of what the broker sends. */
const START = (10 << 16) | 10;
const TUNE = (10 << 16) | 30;
const OPEN_OK = (10 << 16) | 41;
const CHANNEL_OPEN_OK = (20 << 16) | 11;
const DECLARE_OK = (50 << 16) | 11;

const short = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const long = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const shortstr = (s: string) => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), Buffer.from(s, 'utf8')]);
const longstr = (s: string) => Buffer.concat([long(Buffer.byteLength(s)), Buffer.from(s, 'utf8')]);
const EMPTY_TABLE = long(0);

function method(channel: number, classId: number, methodId: number, ...args: Buffer[]): Buffer {
  const payload = Buffer.concat([short(classId), short(methodId), ...args]);
  return Buffer.concat([Buffer.from([METHOD_FRAME]), short(channel), long(payload.length), payload, Buffer.from([FRAME_END])]);
}

export function bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> {
  const url = new URL(endpoint);
  const vhost = url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : '/';
  const startOk = method(0, 10, 11, EMPTY_TABLE, shortstr('PLAIN'), longstr('\0guest\0guest'), shortstr('en_US'));
  const open = method(0, 10, 40, shortstr(vhost), shortstr(''), Buffer.from([0]));
  const channelOpen = method(1, 20, 10, shortstr(''));
  // Bits: passive only.
  const declare = method(1, 50, 10, short(0), shortstr(String(options.queue)), Buffer.from([1]), EMPTY_TABLE);
  const close = method(0, 10, 50, short(200), shortstr(''), short(0), short(0));
  let buffered: Buffer = Buffer.alloc(0);
  return bareConversation(url.hostname, Number(url.port || 5672), PROTOCOL_HEADER, (chunk, talk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    for (let next = nextMethod(); next !== undefined; next = nextMethod()) {
      const [id, args] = next;
      if (id === START) talk.write(startOk);
      else if (id === TUNE) {
        // Tune-Ok: the broker's channel-max, a 128 KiB frame-max as amqplib asks, no heartbeat.
        talk.write(Buffer.concat([method(0, 10, 31, args.subarray(0, 2), long(131_072), short(0)), open]));
      } else if (id === OPEN_OK) talk.write(channelOpen);
      else if (id === CHANNEL_OPEN_OK) talk.write(declare);
      else if (id === DECLARE_OK) talk.write(close);
      // Close-Ok, or the broker closing with an error: over.
      else return talk.done();
    }
  });

  /** The class and method (class << 16 | method) and arguments of the next whole method frame, consumed; undefined until one has arrived. */
  function nextMethod(): [number, Buffer] | undefined {
    while (buffered.length >= 7) {
      const size = buffered.readUInt32BE(3);
      if (buffered.length < 8 + size) return undefined;
      const frame = buffered.subarray(0, 7 + size);
      buffered = buffered.subarray(8 + size);
      if (frame[0] === METHOD_FRAME) return [frame.readUInt32BE(7), frame.subarray(11)];
    }
    return undefined;
  }
}
