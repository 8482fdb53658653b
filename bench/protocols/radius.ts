// RADIUS for the protocol benchmark: the agent's RADIUS check against a real FreeRADIUS (the
// tests' peer) accepting a user, beside the bare exchange over node:dgram: an Access-Request
// built by hand with node:crypto (User-Password hidden, Message-Authenticator signed), the reply
// in and its Response Authenticator checked. The prober builds its request with the `radius`
// library, which this leaves out.
import { createHash, createHmac, randomBytes, randomInt } from 'node:crypto';
import { RADIUS_SECRET, RADIUS_USER, startFreeradius } from '../../test/fixtures/peers/freeradius.js';
import { bareDatagram, hostAndPort } from '../support/bare-datagram.js';

export const checkType = 'RADIUS';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const freeradius = await startFreeradius();
  return { endpoint: freeradius.endpoint, options: { secret: RADIUS_SECRET, ...RADIUS_USER }, stop: () => freeradius.stop() };
}

const ACCESS_REQUEST = 1;
const [USER_NAME, USER_PASSWORD, NAS_IDENTIFIER, MESSAGE_AUTHENTICATOR] = [1, 2, 32, 80];

const attribute = (type: number, value: Buffer) => Buffer.concat([Buffer.from([type, value.length + 2]), value]);

/** RFC 2865 5.2: the password, NUL-padded to 16-byte blocks, each XORed with MD5(secret + previous block). */
function hiddenPassword(password: string, secret: string, authenticator: Buffer): Buffer {
  const plain = Buffer.alloc(Math.max(16, Math.ceil(Buffer.byteLength(password) / 16) * 16));
  plain.write(password);
  const hidden = Buffer.alloc(plain.length);
  let previous = authenticator;
  for (let at = 0; at < plain.length; at += 16) {
    const pad = createHash('md5').update(secret).update(previous).digest();
    for (let i = 0; i < 16; i++) hidden[at + i] = plain[at + i]! ^ pad[i]!;
    previous = hidden.subarray(at, at + 16);
  }
  return hidden;
}

function accessRequest(secret: string, username: string, password: string): Buffer {
  const authenticator = randomBytes(16);
  const attributes = Buffer.concat([
    attribute(USER_NAME, Buffer.from(username)),
    attribute(USER_PASSWORD, hiddenPassword(password, secret, authenticator)),
    attribute(NAS_IDENTIFIER, Buffer.from('outpost')),
    attribute(MESSAGE_AUTHENTICATOR, Buffer.alloc(16)),
  ]);
  const packet = Buffer.concat([Buffer.from([ACCESS_REQUEST, randomInt(256), 0, 0]), authenticator, attributes]);
  packet.writeUInt16BE(packet.length, 2);
  createHmac('md5', secret).update(packet).digest().copy(packet, packet.length - 16);
  return packet;
}

export function bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> {
  const secret = String(options.secret);
  const request = accessRequest(secret, String(options.username), String(options.password ?? ''));
  return bareDatagram(...hostAndPort(endpoint), request, (reply) => {
    if (reply[1] !== request[1]) return false;
    // The Response Authenticator, checked as the prober does (the result is not needed here).
    createHash('md5').update(reply.subarray(0, 4)).update(request.subarray(4, 20)).update(reply.subarray(20)).update(secret).digest().equals(reply.subarray(4, 20));
    return true;
  });
}
