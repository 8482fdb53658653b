// The records of a spool segment: results (already in the wire's encoding), a seal naming the
// batch the results above it make, and a release (the batch was acknowledged or evicted).
//
// A record is its kind (1 byte), the length of its payload and the CRC-32 of the payload (4
// bytes each, little-endian), then the payload. A crash can tear only the last write, so a
// reader stops at the first record that is cut short or fails its checksum: what follows it
// was never durable.
import { crc32 } from 'node:zlib';

const RecordKind = { results: 1, seal: 2, release: 3 } as const;

export type SpoolRecord =
  | { kind: 'results'; count: number; encoded: Buffer }
  | { kind: 'seal'; seq: number; batchId: string }
  | { kind: 'release'; batchId: string };

const HEADER_BYTES = 9;

/** `count` results, `encoded` as the repeated field of a ResultBatch (encoded-results.ts). */
export function resultsRecord(count: number, encoded: Uint8Array): Buffer {
  const { bytes, payload } = record(RecordKind.results, 4 + encoded.length);
  payload.writeUInt32LE(count, 0);
  payload.set(encoded, 4);
  return withChecksum(bytes, payload);
}

export function sealRecord(batchId: string, seq: number): Buffer {
  const { bytes, payload } = record(RecordKind.seal, 8 + Buffer.byteLength(batchId, 'latin1'));
  payload.writeDoubleLE(seq, 0);
  payload.write(batchId, 8, 'latin1');
  return withChecksum(bytes, payload);
}

export function releaseRecord(batchId: string): Buffer {
  const { bytes, payload } = record(RecordKind.release, Buffer.byteLength(batchId, 'latin1'));
  payload.write(batchId, 0, 'latin1');
  return withChecksum(bytes, payload);
}

/** A record's bytes with its kind and length written, and the part its payload goes in (one buffer: the results are copied once). */
function record(kind: number, payloadBytes: number): { bytes: Buffer; payload: Buffer } {
  const bytes = Buffer.allocUnsafe(HEADER_BYTES + payloadBytes);
  bytes[0] = kind;
  bytes.writeUInt32LE(payloadBytes, 1);
  return { bytes, payload: bytes.subarray(HEADER_BYTES) };
}

/** Writes the checksum of the payload, once it is filled in. */
function withChecksum(bytes: Buffer, payload: Buffer): Buffer {
  bytes.writeUInt32LE(crc32(payload), 5);
  return bytes;
}

/** The records of a segment's bytes, and how many bytes they span: less than the whole when the tail is torn. */
export function readRecords(bytes: Buffer): { records: SpoolRecord[]; intactBytes: number } {
  const records: SpoolRecord[] = [];
  let offset = 0;
  while (offset + HEADER_BYTES <= bytes.length) {
    const length = bytes.readUInt32LE(offset + 1);
    const end = offset + HEADER_BYTES + length;
    if (end > bytes.length) break;
    const payload = bytes.subarray(offset + HEADER_BYTES, end);
    if (crc32(payload) !== bytes.readUInt32LE(offset + 5)) break;
    const parsed = parsePayload(bytes[offset]!, payload);
    if (!parsed) break;
    records.push(parsed);
    offset = end;
  }
  return { records, intactBytes: offset };
}

function parsePayload(kind: number, payload: Buffer): SpoolRecord | undefined {
  if (kind === RecordKind.results && payload.length >= 4) return { kind: 'results', count: payload.readUInt32LE(0), encoded: payload.subarray(4) };
  if (kind === RecordKind.seal && payload.length > 8) return { kind: 'seal', seq: payload.readDoubleLE(0), batchId: payload.toString('latin1', 8) };
  if (kind === RecordKind.release && payload.length > 0) return { kind: 'release', batchId: payload.toString('latin1') };
  return undefined;
}
