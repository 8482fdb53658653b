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
  const payload = Buffer.allocUnsafe(4 + encoded.length);
  payload.writeUInt32LE(count, 0);
  payload.set(encoded, 4);
  return record(RecordKind.results, payload);
}

export function sealRecord(batchId: string, seq: number): Buffer {
  const payload = Buffer.allocUnsafe(8 + Buffer.byteLength(batchId, 'latin1'));
  payload.writeDoubleLE(seq, 0);
  payload.write(batchId, 8, 'latin1');
  return record(RecordKind.seal, payload);
}

export function releaseRecord(batchId: string): Buffer {
  return record(RecordKind.release, Buffer.from(batchId, 'latin1'));
}

function record(kind: number, payload: Buffer): Buffer {
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header[0] = kind;
  header.writeUInt32LE(payload.length, 1);
  header.writeUInt32LE(crc32(payload), 5);
  return Buffer.concat([header, payload]);
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
