// NTP: one client exchange with the server (RFC 5905 section 8): the clock offset and round-trip
// delay, the server's stratum, leap indicator and reference. RED when the server is not
// synchronised (stratum 16, leap alarm) or sends a kiss-o'-death; the `stratum` and `offset_ms`
// sources are observed for assertions. Written by hand over node:dgram: the exchange is one
// 48-byte datagram each way, and the npm NTP clients either wrap it in their own clock logic
// (sampling, filtering, setting the time) or return only a Date, losing the fields judged here.
import { randomFillSync } from 'node:crypto';
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import { parseHostOptionalPort } from '../../../shared/src/endpoints.js';
import { datagramPeer, exchangeDatagram } from './datagram.js';
import type { Observed, Prober, ProbeDetails, ProbeResult } from './prober.js';

const NTP_PORT = 123;
const PACKET_BYTES = 48;
/** LI 0 (no warning), VN 4, mode 3 (client). */
const CLIENT_HEADER = (0 << 6) | (4 << 3) | 3;
const SERVER_MODE = 4;
/** Seconds from the NTP epoch (1900) to the Unix epoch (1970). */
const NTP_TO_UNIX_S = 2_208_988_800;
const ERA_S = 2 ** 32;
const LEAP_ALARM = 3;
const UNSYNCHRONISED = 16;
/** ntpq's names for the leap indicator. */
const LEAP_NAMES = ['none', 'add_sec', 'del_sec', 'alarm'] as const;
const KISS_CODE = /^[A-Z]{4}$/;
/** The kiss codes a client meets (RFC 5905 figure 13); INIT, ntpd's "not yet synchronised", is no refusal. */
const KISS_MEANINGS: Record<string, string> = {
  DENY: 'access denied',
  RSTR: 'access restricted',
  RATE: 'rate exceeded, poll less often',
  AUTH: 'authentication failed',
  CRYP: 'cryptographic authentication failed',
  NKEY: 'no key found',
};

export function ntpProber(): Prober<'NTP'> {
  return {
    family: 'NTP',
    prepare(target) {
      const address = parseHostOptionalPort(target.endpoint, NTP_PORT);
      if (!address) return () => Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      const peer = datagramPeer(address.host, address.port);
      // With an assertion on the stratum, an unsynchronised server or a kiss-o'-death is the assertion's to judge.
      const stratumAsserted = assertsOn(target.options.assertions, 'stratum');
      return async (signal): Promise<ProbeResult> => {
        const started = performance.now();
        // T1 and T4 on the wall clock to a fraction of a millisecond: Date.now() counts whole
        // milliseconds (floored, hence the half), performance.now() the time since.
        const wallClock = Date.now() + 0.5 - started;
        const request = clientPacket();
        const exchange = await exchangeDatagram(peer, request, signal, target.timeoutMs, answersRequest);
        const responseTimeMs = Math.round(performance.now() - started);
        const timings: ProbeDetails = exchange.dnsMs === undefined ? {} : { dns_ms: exchange.dnsMs };
        if (!exchange.ok) return { ok: false, responseTimeMs, message: exchange.message, details: timings };
        const verdict = judgeReply(exchange.reply, wallClock + exchange.sentAt, wallClock + exchange.receivedAt, stratumAsserted);
        return { ...verdict, responseTimeMs, details: { ...timings, ...verdict.details } };
      };
    },
  };
}

/**
 * The transmit timestamp is random, not the time: the server echoes it as the originate
 * timestamp, which tells its reply from a late or forged one, and it discloses nothing of
 * this machine's clock. T1 is kept on this side.
 */
function clientPacket(): Buffer {
  const packet = Buffer.alloc(PACKET_BYTES);
  packet[0] = CLIENT_HEADER;
  randomFillSync(packet, 40, 8);
  return packet;
}

/** A server reply whose originate timestamp is not our transmit timestamp answers another request. */
function answersRequest(reply: Buffer, request: Buffer): boolean {
  return reply.length < PACKET_BYTES || (reply[0]! & 7) !== SERVER_MODE || reply.compare(request, 40, 48, 24, 32) === 0;
}

function judgeReply(reply: Buffer, t1: number, t4: number, stratumAsserted: boolean): Omit<ProbeResult, 'responseTimeMs'> {
  const wrong = notAReply(reply);
  if (wrong) return { ok: false, message: `not an NTP reply (${wrong})`, details: {} };
  const leap = reply[0]! >> 6;
  const wireStratum = reply[1]!;
  const refId = reply.subarray(12, 16);
  const kissCode = wireStratum === 0 ? asKissCode(refId) : undefined;
  if (kissCode !== undefined && kissCode !== 'INIT') {
    const meaning = KISS_MEANINGS[kissCode];
    const details = { stratum: 0, leap: LEAP_NAMES[leap]!, reference: kissCode };
    return { ok: stratumAsserted, message: `NTP kiss-o'-death ${kissCode}${meaning ? ` (${meaning})` : ''}`, details, observed: { stratum: 0 } };
  }
  if (reply.readUInt32BE(40) === 0 && reply.readUInt32BE(44) === 0) return { ok: false, message: 'not an NTP reply (no transmit timestamp)', details: {} };
  // Stratum 0 on the wire, other than a kiss, is stratum 16 (RFC 5905 section 7.3).
  const stratum = wireStratum === 0 ? UNSYNCHRONISED : wireStratum;
  const t2 = ntpTimeMs(reply, 32);
  const t3 = ntpTimeMs(reply, 40);
  const offset = (t2 - t1 + (t3 - t4)) / 2;
  const delay = t4 - t1 - (t3 - t2);
  const details: ProbeDetails = {
    offset_ms: hundredths(offset),
    delay_ms: hundredths(delay),
    stratum,
    leap: LEAP_NAMES[leap]!,
    reference: kissCode ?? reference(stratum, refId),
    root_delay_ms: hundredths(shortFormatMs(reply, 4)),
    root_dispersion_ms: hundredths(shortFormatMs(reply, 8)),
  };
  const observed: Observed = { offset_ms: details.offset_ms as number, stratum };
  if (stratum >= UNSYNCHRONISED || leap === LEAP_ALARM) {
    const why = stratum >= UNSYNCHRONISED ? `stratum ${stratum}` : 'leap indicator alarm';
    return { ok: stratumAsserted, message: `NTP server is not synchronised (${why})`, details, observed };
  }
  return { ok: true, message: `NTP stratum ${stratum}, offset ${signed(offset)} ms, delay ${delay.toFixed(1)} ms`, details, observed };
}

/** Why the datagram is no NTP server reply, or undefined when it is one. */
function notAReply(reply: Buffer): string | undefined {
  if (reply.length < PACKET_BYTES) return `${reply.length} bytes`;
  const version = (reply[0]! >> 3) & 7;
  const mode = reply[0]! & 7;
  if (mode !== SERVER_MODE) return `mode ${mode}`;
  if (version < 3 || version > 4) return `version ${version}`;
  return undefined;
}

/** A stratum 0 reply's reference, when it is a kiss code: four ASCII capitals. */
function asKissCode(refId: Buffer): string | undefined {
  const text = refId.toString('latin1');
  return KISS_CODE.test(text) ? text : undefined;
}

/** A 64-bit NTP timestamp as milliseconds since the Unix epoch. */
function ntpTimeMs(packet: Buffer, at: number): number {
  const seconds = packet.readUInt32BE(at);
  // Era 1 begins in 2036: a count with its top bit clear is read as after it (RFC 4330 section 3).
  const unixSeconds = seconds - NTP_TO_UNIX_S + (seconds < 0x8000_0000 ? ERA_S : 0);
  return unixSeconds * 1000 + (packet.readUInt32BE(at + 4) / ERA_S) * 1000;
}

/** A 32-bit NTP short (16.16 seconds) as milliseconds. */
function shortFormatMs(packet: Buffer, at: number): number {
  return (packet.readUInt32BE(at) / 65536) * 1000;
}

/** Stratum 1 names its source in ASCII ("GPS", "PPS"); higher strata give the upstream server's IPv4 address (or an IPv6 one's hash). */
function reference(stratum: number, refId: Buffer): string {
  if (stratum === 1) return refId.toString('latin1').replace(/\0+$/, '');
  return `${refId[0]}.${refId[1]}.${refId[2]}.${refId[3]}`;
}

function hundredths(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function signed(ms: number): string {
  const tenths = Math.round(ms * 10) / 10;
  return `${tenths >= 0 ? '+' : ''}${tenths.toFixed(1)}`;
}
