// The protobuf wire format where the agent writes and reads messages by hand (every result on
// its way to the spool, encoded-results.ts; the gRPC health check, grpc-health.ts): field
// tags, varints and the fields built from them. Each writer puts its bytes at `at` in a
// buffer sized beforehand and returns the offset after them.

export const WireType = { varint: 0, fixed64: 1, lengthDelimited: 2 } as const;

/** A field's tag: below 128, one byte, for the field numbers used here (up to 15). */
export const fieldTag = (field: number, wireType: number) => (field << 3) | wireType;

export function varintSize(value: number): number {
  let size = 1;
  while (value >= 128) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}

/** A non-negative safe integer as a varint (bit operations would stop at 32 bits). */
export function writeVarint(out: Buffer, at: number, value: number): number {
  while (value >= 128) {
    out[at++] = (value % 128) | 128;
    value = Math.floor(value / 128);
  }
  out[at++] = value;
  return at;
}

/** A varint of at most 32 bits at `start`, and the offset after it. */
export function readVarint(bytes: Buffer, start: number): { value: number; next: number } {
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

/** A string's length prefix and UTF-8 bytes (without its tag). */
export function stringFieldSize(value: string): number {
  const bytes = Buffer.byteLength(value);
  return varintSize(bytes) + bytes;
}

export function writeStringField(out: Buffer, at: number, tag: number, value: string): number {
  const bytes = Buffer.byteLength(value);
  out[at++] = tag;
  at = writeVarint(out, at, bytes);
  // As many bytes as characters: ASCII (ids, most messages), copied here, where Buffer#write's
  // argument checks cost more than the copy.
  if (bytes === value.length) {
    for (let i = 0; i < bytes; i++) out[at + i] = value.charCodeAt(i);
    return at + bytes;
  }
  return at + out.write(value, at, bytes, 'utf8');
}

export function writeVarintField(out: Buffer, at: number, tag: number, value: number): number {
  out[at] = tag;
  return writeVarint(out, at + 1, value);
}

export function writeBoolField(out: Buffer, at: number, tag: number, value: boolean): number {
  return writeVarintField(out, at, tag, value ? 1 : 0);
}

/** A double: 8 bytes, little-endian. */
export function writeDoubleField(out: Buffer, at: number, tag: number, value: number): number {
  out[at] = tag;
  return out.writeDoubleLE(value, at + 1);
}
