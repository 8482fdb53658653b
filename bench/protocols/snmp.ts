// SNMP for the protocol benchmark: the agent's SNMPv2c check of two OIDs against a real snmpd
// (the tests' peer), beside the bare exchange: the same GetRequest, BER-encoded by hand, out of
// a connected node:dgram socket as the prober's (which goes through net-snmp), and the reply in,
// unparsed. v1 and v2c only: startPeer asks v2c, and hand-built USM (HMAC, AES) is not the floor
// this compares against.
import { randomInt } from 'node:crypto';
import { OID, SNMP_PEER, startSnmpd } from '../../test/fixtures/peers/snmpd.js';
import { bareDatagram, hostAndPort } from '../support/bare-datagram.js';

export const checkType = 'SNMP';

export async function startPeer(): Promise<{ endpoint: string; options: Record<string, unknown>; stop(): Promise<void> }> {
  const snmpd = await startSnmpd();
  return { endpoint: snmpd.endpoint, options: { version: '2c', community: SNMP_PEER.community, oids: [OID.sysUpTime, OID.sysName] }, stop: () => snmpd.stop() };
}

const VERSIONS: Record<string, number> = { '1': 0, '2c': 1 };

export function bareExchange(endpoint: string, options: Record<string, unknown>): Promise<void> {
  const packet = getRequest(VERSIONS[(options.version as string | undefined) ?? '2c']!, (options.community as string | undefined) ?? 'public', (options.oids as string[] | undefined) ?? [OID.sysUpTime]);
  return bareDatagram(...hostAndPort(endpoint), packet);
}

/** Message { version, community, GetRequest-PDU { request-id, 0, 0, varbinds { oid, NULL }... } } (RFC 3416). */
function getRequest(version: number, community: string, oids: string[]): Buffer {
  const varbinds = oids.map((oid) => tlv(0x30, Buffer.concat([tlv(0x06, encodeOid(oid)), Buffer.from([0x05, 0x00])])));
  const pdu = tlv(0xa0, Buffer.concat([integer(randomInt(1, 0x7fffffff)), integer(0), integer(0), tlv(0x30, Buffer.concat(varbinds))]));
  return tlv(0x30, Buffer.concat([integer(version), tlv(0x04, Buffer.from(community)), pdu]));
}

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}

function integer(value: number): Buffer {
  const bytes = [];
  do {
    bytes.unshift(value & 0xff);
    value = Math.floor(value / 256);
  } while (value > 0);
  if (bytes[0]! & 0x80) bytes.unshift(0);
  return tlv(0x02, Buffer.from(bytes));
}

function encodeOid(oid: string): Buffer {
  const arcs = oid.replace(/^\./, '').split('.').map(Number);
  const bytes = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const base128 = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) base128.unshift((rest & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return Buffer.from(bytes);
}
