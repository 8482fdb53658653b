// MQTT for the protocol benchmark: the agent's round-trip check against the tests' Mosquitto
// (logged in, publishing to its topic and receiving its payload back), beside the bare exchange
// over node:net with hand-built MQTT 3.1.1 packets: CONNECT, SUBSCRIBE, PUBLISH, then reading
// until that PUBLISH comes back, without the prober's checks.
import { randomBytes } from 'node:crypto';
import { MQTT_USER, startMosquitto } from '../../test/fixtures/peers/mosquitto.js';
import { bareConversation } from '../support/bare-conversation.js';

export const checkType = 'MQTT';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const broker = await startMosquitto();
  return { endpoint: broker.endpoint, options: { ...MQTT_USER, topic: 'outpost/bench' }, stop: () => broker.stop() };
}

const CONNACK = 0x20;
const PUBLISH = 0x30;
const SUBACK = 0x90;

const utf8 = (s: string | Buffer) => {
  const bytes = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
  const length = Buffer.alloc(2);
  length.writeUInt16BE(bytes.length);
  return Buffer.concat([length, bytes]);
};

/** A fixed header (type and flags, variable-length remaining length) and the rest. */
function packet(first: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const length: number[] = [];
  let n = body.length;
  do {
    length.push((n % 128) | (n >= 128 ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return Buffer.concat([Buffer.from([first, ...length]), body]);
}

export function bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> {
  const url = new URL(endpoint);
  const nonce = randomBytes(8).toString('hex');
  const topic = String(options.topic);
  const payload = Buffer.from(`{"outpost_probe":"${nonce}"}`);
  // Protocol "MQTT" level 4, flags: user name, password, clean session; keep alive 0.
  const connect = packet(0x10, utf8('MQTT'), Buffer.from([4, 0xc2, 0, 0]), utf8(`outpost-probe-${nonce}`), utf8(String(options.username)), utf8(String(options.password)));
  const subscribe = packet(0x82, Buffer.from([0, 1]), utf8(topic), Buffer.from([0]));
  const publish = packet(PUBLISH, utf8(topic), payload);
  let buffered: Buffer = Buffer.alloc(0);
  return bareConversation(url.hostname, Number(url.port || 1883), connect, (chunk, talk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    for (let next = nextPacket(); next !== undefined; next = nextPacket()) {
      const [type, body] = next;
      if (type === CONNACK) {
        if (body[1] !== 0) return talk.done();
        talk.write(subscribe);
      } else if (type === SUBACK) {
        talk.write(publish);
      } else if (type === PUBLISH && body.subarray(2 + body.readUInt16BE(0)).equals(payload)) {
        return talk.done();
      }
    }
  });

  /** The type (high nibble) and body of the next whole packet, consumed; undefined until one has arrived. */
  function nextPacket(): [number, Buffer] | undefined {
    let length = 0;
    let multiplier = 1;
    let header = 1;
    for (;;) {
      if (buffered.length <= header) return undefined;
      const byte = buffered[header++]!;
      length += (byte & 0x7f) * multiplier;
      multiplier *= 128;
      if ((byte & 0x80) === 0) break;
    }
    if (buffered.length < header + length) return undefined;
    const found: [number, Buffer] = [buffered[0]! & 0xf0, buffered.subarray(header, header + length)];
    buffered = buffered.subarray(header + length);
    return found;
  }
}
