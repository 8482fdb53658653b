// What the agent's two gRPC clients share (the control stream and the GRPC prober): the status
// codes of the gRPC spec, the 5-byte length prefix of each message, and how a status is read
// from a response's headers.
import type { IncomingHttpHeaders } from 'node:http2';

export const GRPC_CODE_NAMES = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS', 'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED'] as const;

export type GrpcCodeName = (typeof GRPC_CODE_NAMES)[number];

export const GrpcCode = Object.fromEntries(GRPC_CODE_NAMES.map((name, code) => [name, code])) as Record<GrpcCodeName, number>;

export interface GrpcStatus {
  code: number;
  details: string;
}

export function grpcCodeName(code: number): string {
  return GRPC_CODE_NAMES[code] ?? `code ${code}`;
}

/** One message as it travels: an uncompressed flag byte, its length (big-endian), the bytes. */
export function frameMessage(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

/**
 * Cuts the bytes of a response into its messages, however the chunks fall. A message over
 * `maxBytes`, or a compressed one (the agent never offers compression), is an error thrown
 * from push(); what was buffered is then dropped.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private expected: number | undefined;

  constructor(
    private readonly onMessage: (message: Buffer) => void,
    private readonly maxBytes: number,
  ) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.expected === undefined) {
        if (this.buffered < 5) return;
        const header = this.take(5);
        const length = header.readUInt32BE(1);
        if (header[0] !== 0) throw new FrameError(GrpcCode.INTERNAL, 'the server sent a compressed message, which the agent did not offer to read');
        if (length > this.maxBytes) throw new FrameError(GrpcCode.RESOURCE_EXHAUSTED, `a message of ${length} bytes is over the limit of ${this.maxBytes}`);
        this.expected = length;
      }
      if (this.buffered < this.expected) return;
      const message = this.take(this.expected);
      this.expected = undefined;
      this.onMessage(message);
    }
  }

  /** The first `n` buffered bytes, joined only when they span chunks. */
  private take(n: number): Buffer {
    this.buffered -= n;
    const first = this.chunks[0];
    if (first && first.length >= n) {
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const joined = Buffer.concat(this.chunks);
    this.chunks = joined.length > n ? [joined.subarray(n)] : [];
    return joined.subarray(0, n);
  }
}

export class FrameError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The status a response carries in `headers` (its trailers, or the headers of a trailers-only
 * response), or undefined when it carries none. grpc-message is percent-encoded.
 */
export function statusInHeaders(headers: IncomingHttpHeaders): GrpcStatus | undefined {
  const code = headers['grpc-status'];
  if (typeof code !== 'string' || !/^\d+$/.test(code)) return undefined;
  return { code: Number(code), details: decodeGrpcMessage(headers['grpc-message']) };
}

function decodeGrpcMessage(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A response that is not gRPC at all (a proxy's or load balancer's error page), as the gRPC spec maps its HTTP status. */
export function statusFromHttp(httpStatus: number): GrpcStatus {
  const code =
    httpStatus === 400 ? GrpcCode.INTERNAL
    : httpStatus === 401 ? GrpcCode.UNAUTHENTICATED
    : httpStatus === 403 ? GrpcCode.PERMISSION_DENIED
    : httpStatus === 404 ? GrpcCode.UNIMPLEMENTED
    : [429, 502, 503, 504].includes(httpStatus) ? GrpcCode.UNAVAILABLE
    : GrpcCode.UNKNOWN;
  return { code, details: `the server answered HTTP ${httpStatus}, not gRPC` };
}
