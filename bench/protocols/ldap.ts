// LDAP for the protocol benchmark: the agent's LDAP check against a real slapd (the tests'
// peer) binding as the admin and counting the people, beside the bare exchange over node:net:
// a hand-built BindRequest, a SearchRequest asking for no attributes ("1.1", as the prober
// does without an `attribute` assertion), reading until SearchResultDone, then UnbindRequest.
import { LDAP_ADMIN, LDAP_PEOPLE, startSlapd } from '../../test/fixtures/peers/slapd.js';
import { bareConversation } from '../support/bare-conversation.js';

export const checkType = 'LDAP';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const slapd = await startSlapd();
  return {
    endpoint: slapd.url,
    options: { bind_dn: LDAP_ADMIN.dn, password: LDAP_ADMIN.password, base_dn: LDAP_PEOPLE, filter: '(mail=*)' },
    stop: () => slapd.stop(),
  };
}

const SIZE_LIMIT = 1000;
const SEARCH_RESULT_DONE = 0x65;

/** A BER element: tag, definite length (short or long form), content. */
function ber(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const length = body.length < 0x80 ? Buffer.from([body.length]) : body.length < 0x100 ? Buffer.from([0x81, body.length]) : Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
}
const integer = (n: number) => ber(0x02, n < 0x80 ? Buffer.from([n]) : Buffer.from([n >> 8, n & 0xff]));
const enumerated = (n: number) => ber(0x0a, Buffer.from([n]));
const text = (tag: number, s: string) => ber(tag, Buffer.from(s, 'utf8'));
const message = (id: number, op: Buffer) => ber(0x30, integer(id), op);

/** The bench's filter is a presence filter, "(attr=*)": encoded as such ([7] attr). */
function presenceFilter(filter: string): Buffer {
  return text(0x87, /^\((.+)=\*\)$/.exec(filter)?.[1] ?? 'objectClass');
}

export function bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> {
  const url = new URL(endpoint);
  const bind = message(1, ber(0x60, integer(3), text(0x04, String(options.bind_dn)), text(0x80, String(options.password))));
  const search = message(
    2,
    ber(0x63, text(0x04, String(options.base_dn)), enumerated(2), enumerated(0), integer(SIZE_LIMIT), integer(5), ber(0x01, Buffer.from([0])), presenceFilter(String(options.filter)), ber(0x30, text(0x04, '1.1'))),
  );
  const unbind = message(3, Buffer.from([0x42, 0x00]));
  let buffered = Buffer.alloc(0);
  let bound = false;
  return bareConversation(url.hostname, Number(url.port || 389), bind, (chunk, talk) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (let op = nextMessage(); op !== undefined; op = nextMessage()) {
      if (!bound) {
        bound = true;
        talk.write(search);
      } else if (op === SEARCH_RESULT_DONE) {
        return talk.endWith(unbind);
      }
    }
  });

  /** The protocolOp tag of the next whole message, consumed; undefined until one has arrived. */
  function nextMessage(): number | undefined {
    if (buffered.length < 2) return undefined;
    let length = buffered[1]!;
    let header = 2;
    if (length & 0x80) {
      const bytes = length & 0x7f;
      if (buffered.length < 2 + bytes) return undefined;
      length = buffered.readUIntBE(2, bytes);
      header += bytes;
    }
    if (buffered.length < header + length) return undefined;
    // messageID is a short INTEGER (02 len id...): the protocolOp follows it.
    const op = buffered[header + 2 + buffered[header + 1]!]!;
    buffered = buffered.subarray(header + length);
    return op;
  }
}
