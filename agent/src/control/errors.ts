// The one place that decides whether a broken stream is worth reconnecting.
import { status as GrpcStatus } from '@grpc/grpc-js';

export type StreamFailure = 'transient' | 'fatal';

/** Statuses that reconnecting cannot fix: a bad token, a refused hello, a protocol bug. */
const FATAL = new Set<number>([GrpcStatus.UNAUTHENTICATED, GrpcStatus.PERMISSION_DENIED, GrpcStatus.INVALID_ARGUMENT, GrpcStatus.FAILED_PRECONDITION]);

export function classifyStreamError(err: unknown): StreamFailure {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'number' && FATAL.has(code) ? 'fatal' : 'transient';
}

export function describeStreamError(err: unknown): string {
  const e = err as { code?: number; details?: string; message?: string };
  const name = typeof e?.code === 'number' ? GrpcStatus[e.code] : undefined;
  return [name, e?.details || e?.message].filter(Boolean).join(': ') || String(err);
}
