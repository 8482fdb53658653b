// The two messages of grpc.health.v1.Health/Check, encoded by hand: each has a single
// field, so a protobuf runtime would be more code than this.
import { fieldTag, readVarint, stringFieldSize, WireType, writeStringField } from '../grpc/protobuf-wire.js';

const REQUEST_SERVICE = fieldTag(1, WireType.lengthDelimited);
const RESPONSE_STATUS = fieldTag(1, WireType.varint);

/** HealthCheckRequest { string service = 1; } */
export function encodeHealthCheckRequest(service: string): Buffer {
  if (service === '') return Buffer.alloc(0);
  const out = Buffer.allocUnsafe(1 + stringFieldSize(service));
  writeStringField(out, 0, REQUEST_SERVICE, service);
  return out;
}

/** HealthCheckResponse { ServingStatus status = 1; } → the status number (0 when absent). */
export function decodeHealthCheckResponse(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const tag = bytes[i++]!;
    if (tag === RESPONSE_STATUS) return readVarint(bytes, i).value;
    // Skip an unknown field: varint (wire type 0) or length-delimited (wire type 2).
    if ((tag & 7) === WireType.varint) i = readVarint(bytes, i).next;
    else if ((tag & 7) === WireType.lengthDelimited) {
      const { value, next } = readVarint(bytes, i);
      i = next + value;
    } else break;
  }
  return 0;
}

/** HealthCheckResponse.ServingStatus, by number. */
export const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;
export const SERVING = 1;
export const SERVICE_UNKNOWN = SERVING_STATUS[3];
