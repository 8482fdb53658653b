// RADIUS: an Access-Request for options.username with its password (PAP), signed with the
// shared secret and a Message-Authenticator (FreeRADIUS 3.2 asks for one since BlastRADIUS),
// over a connected UDP socket (a closed port then reads "connection refused"). The same
// packet is sent again twice within the timeout, as RADIUS clients do, UDP losing packets.
// GREEN on Access-Accept; RED on Access-Reject or Access-Challenge, unless an assertion on
// `code` judges the reply instead.
import { createHash, createHmac } from 'node:crypto';
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import radius from 'radius';
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import { parseHostOptionalPort, type HostPort } from '../../../shared/src/endpoints.js';
import { describeNetworkError } from './network-errors.js';
import type { ProbeSignal } from './probe-signal.js';
import type { Prober, ProbeDetails, ProbeResult, ProbeTarget } from './prober.js';

const RADIUS_PORT = 1812;
/** The first send and two retransmissions, spread over the timeout. */
const SENDS = 3;
const HEADER_LENGTH = 20;
const AUTHENTICATOR = { start: 4, end: 20 };
const REPLY_MESSAGE = 18;
const MESSAGE_AUTHENTICATOR = 80;
const REPLIES: Record<number, string> = { 2: 'Access-Accept', 3: 'Access-Reject', 11: 'Access-Challenge' };

/** What every check of a target starts from, worked out once per assignment. */
interface PreparedTarget {
  address: HostPort;
  socketType: dgram.SocketType;
  secret: string;
  /** Copied for each request: the library appends its Message-Authenticator to the array it is given. */
  attributes: [string, string][];
  retransmitMs: number;
  /** An assertion on `code` judges every verified reply. */
  judgedByAssertion: boolean;
}

export function radiusProber(): Prober<'RADIUS'> {
  return {
    family: 'RADIUS',
    prepare(target) {
      const address = parseHostOptionalPort(target.endpoint, RADIUS_PORT);
      if (!address) return () => Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      const o = target.options;
      const prepared: PreparedTarget = {
        address,
        socketType: isIP(address.host) === 6 ? 'udp6' : 'udp4',
        secret: o.secret,
        attributes: [
          ['User-Name', o.username],
          // An empty password is sent as one block of NULs (RFC 2865 5.2 pads it so): the library would send none.
          ['User-Password', o.password || '\0'],
          ['NAS-Identifier', o.nas_identifier ?? 'outpost'],
        ],
        retransmitMs: target.timeoutMs / SENDS,
        judgedByAssertion: assertsOn(o.assertions, 'code'),
      };
      return (signal) => probe(target, prepared, signal);
    },
  };
}

function probe(target: ProbeTarget<'RADIUS'>, prepared: PreparedTarget, signal: ProbeSignal): Promise<ProbeResult> {
  // A new identifier and Request Authenticator for each check (the password is hidden with the latter).
  const request = radius.encode({ code: 'Access-Request', secret: prepared.secret, attributes: prepared.attributes.slice(), add_message_authenticator: true });
  // Timed from here: the library reads its dictionaries during the first encode.
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const socket = dgram.createSocket(prepared.socketType);
  const details: ProbeDetails = { attempts: 0 };
  let sentAt = 0;
  let retransmit: NodeJS.Timeout | undefined;
  return new Promise<ProbeResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<ProbeResult, 'responseTimeMs'>) => {
      if (settled) return;
      settled = true;
      clearInterval(retransmit);
      signal.removeEventListener('abort', onAbort);
      socket.close();
      resolve({ ...result, responseTimeMs: elapsed() });
    };
    const onAbort = () => finish({ ok: false, message: `timed out after ${target.timeoutMs} ms: no answer from the RADIUS server (unknown client, or wrong secret)`, details });
    signal.addEventListener('abort', onAbort, { once: true });
    let attempts = 0;
    const send = () => {
      if (attempts === SENDS) return clearInterval(retransmit);
      details.attempts = ++attempts;
      socket.send(request);
    };
    socket.on('error', (err) => finish({ ok: false, message: describeNetworkError(err), details }));
    socket.on('message', (reply) => {
      const requestMs = Math.round(performance.now() - sentAt);
      const verdict = judge(reply, request, prepared, target.options.username, requestMs);
      if (verdict === undefined) return;
      details.request_ms = requestMs;
      finish({ ...verdict, details: { ...details, ...verdict.details } });
    });
    socket.connect(prepared.address.port, prepared.address.host, () => {
      if (settled) return;
      sentAt = performance.now();
      send();
      retransmit = setInterval(send, prepared.retransmitMs);
    });
  });
}

/** The result a reply makes; undefined for a reply to another request (its identifier differs), which is ignored. */
function judge(datagram: Buffer, request: Buffer, prepared: PreparedTarget, username: string, requestMs: number): Omit<ProbeResult, 'responseTimeMs'> | undefined {
  const length = datagram.length >= HEADER_LENGTH ? datagram.readUInt16BE(2) : 0;
  if (length < HEADER_LENGTH || length > datagram.length) return { ok: false, message: 'not a RADIUS reply', details: {} };
  const reply = datagram.subarray(0, length);
  if (reply[1] !== request[1]) return undefined;
  const attributes = readAttributes(reply);
  if (!attributes) return { ok: false, message: 'not a RADIUS reply (malformed attributes)', details: {} };
  if (!verifies(reply, request, attributes.messageAuthenticatorAt, prepared.secret)) return { ok: false, message: 'the reply does not verify with this secret (wrong secret?)', details: {} };
  const code = REPLIES[reply[0]!];
  if (code === undefined) return { ok: false, message: `unexpected RADIUS reply (code ${reply[0]}) to an Access-Request`, details: {} };
  const said = attributes.replyMessage === undefined ? '' : `; the server says "${attributes.replyMessage.slice(0, 200)}"`;
  const details: ProbeDetails = { code, ...(attributes.replyMessage !== undefined ? { reply_message: attributes.replyMessage } : {}) };
  const observed = { code };
  if (prepared.judgedByAssertion) return { ok: true, message: `RADIUS ${code} in ${requestMs} ms${said}`, details, observed };
  switch (code) {
    case 'Access-Accept':
      return { ok: true, message: `RADIUS Access-Accept for ${username} in ${requestMs} ms${said}`, details, observed };
    case 'Access-Reject':
      return { ok: false, message: `Access-Reject: wrong username or password${said}`, details, observed };
    default:
      return { ok: false, message: `Access-Challenge: the server asks for a second factor${said}`, details, observed };
  }
}

/** The two attributes the probe reads, walked by hand as the verification below needs their offsets; undefined when malformed. */
function readAttributes(reply: Buffer): { replyMessage?: string; messageAuthenticatorAt?: number } | undefined {
  const found: { replyMessage?: string; messageAuthenticatorAt?: number } = {};
  for (let at = HEADER_LENGTH; at < reply.length; ) {
    const type = reply[at]!;
    const size = reply[at + 1] ?? 0;
    if (size < 2 || at + size > reply.length) return undefined;
    if (type === REPLY_MESSAGE) {
      // Several Reply-Messages are one text, in order (RFC 2865 5.18).
      const text = reply.toString('utf8', at + 2, at + size);
      found.replyMessage = found.replyMessage === undefined ? text : `${found.replyMessage}${text}`;
    } else if (type === MESSAGE_AUTHENTICATOR && size === 18) {
      found.messageAuthenticatorAt = at + 2;
    }
    at += size;
  }
  return found;
}

/**
 * The Response Authenticator (RFC 2865 3), and the Message-Authenticator when the reply has one
 * (RFC 3579 3.2). By hand because the library's verify_response fails every reply without a
 * Message-Authenticator to a request with one, which servers before BlastRADIUS (FreeRADIUS
 * 3.2.1 among them) send, and decodes both packets again to check it.
 */
function verifies(reply: Buffer, request: Buffer, messageAuthenticatorAt: number | undefined, secret: string): boolean {
  const requestAuthenticator = request.subarray(AUTHENTICATOR.start, AUTHENTICATOR.end);
  const expected = createHash('md5').update(reply.subarray(0, AUTHENTICATOR.start)).update(requestAuthenticator).update(reply.subarray(AUTHENTICATOR.end)).update(secret).digest();
  if (!expected.equals(reply.subarray(AUTHENTICATOR.start, AUTHENTICATOR.end))) return false;
  if (messageAuthenticatorAt === undefined) return true;
  const signed = Buffer.from(reply);
  requestAuthenticator.copy(signed, AUTHENTICATOR.start);
  signed.fill(0, messageAuthenticatorAt, messageAuthenticatorAt + 16);
  return createHmac('md5', secret).update(signed).digest().equals(reply.subarray(messageAuthenticatorAt, messageAuthenticatorAt + 16));
}
