// The one place that decides whether a broken stream is worth reconnecting.
import { GrpcCode, grpcCodeName } from '../grpc/wire.js';

export type StreamFailure = 'transient' | 'fatal';

/**
 * Statuses that reconnecting cannot fix: a bad or revoked token, a refused hello, a protocol
 * violation (FAILED_PRECONDITION: this agent spoke out of turn; retrying would loop). Everything
 * else (UNAVAILABLE, a plain stream end, network errors, a shutting-down control plane) is
 * worth another attempt.
 */
const FATAL = new Set<number>([GrpcCode.UNAUTHENTICATED, GrpcCode.PERMISSION_DENIED, GrpcCode.INVALID_ARGUMENT, GrpcCode.FAILED_PRECONDITION]);

export function classifyStreamError(err: unknown): StreamFailure {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'number' && FATAL.has(code) ? 'fatal' : 'transient';
}

/** "UNAUTHENTICATED: invalid agent token", for logs and the CLI's last line. */
export function describeStreamError(err: unknown): string {
  const e = err as { code?: unknown; details?: unknown; message?: unknown } | null | undefined;
  const name = typeof e?.code === 'number' ? grpcCodeName(e.code) : undefined;
  const text = typeof e?.details === 'string' && e.details ? e.details : typeof e?.message === 'string' ? e.message : undefined;
  return [name, text].filter(Boolean).join(': ') || String(err);
}
