// The two messages of grpc.health.v1.Health/Check, encoded by hand: each has a single
// field, so a protobuf runtime would be more code than this.

/** HealthCheckRequest { string service = 1; } */
export function encodeHealthCheckRequest(service: string): Buffer {
  const value = Buffer.from(service, 'utf8');
  return value.length === 0 ? Buffer.alloc(0) : Buffer.concat([Buffer.from([0x0a]), varint(value.length), value]);
}

/** HealthCheckResponse { ServingStatus status = 1; } → the status number (0 when absent). */
export function decodeHealthCheckResponse(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const tag = bytes[i++]!;
    if (tag === 0x08) return readVarint(bytes, i).value;
    // Skip an unknown field: varint (wire type 0) or length-delimited (wire type 2).
    if ((tag & 7) === 0) i = readVarint(bytes, i).next;
    else if ((tag & 7) === 2) {
      const { value, next } = readVarint(bytes, i);
      i = next + value;
    } else break;
  }
  return 0;
}

export const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

function readVarint(bytes: Buffer, start: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let i = start;
  while (i < bytes.length && shift < 35) {
    const b = bytes[i++]!;
    value |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
  }
  return { value, next: i };
}
