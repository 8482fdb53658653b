// GRPC: the standard grpc.health.v1.Health/Check over a new channel (plaintext, or TLS
// with options.tls). SERVING passes; a server without the health service still passes as
// "connection established", and says so.
import { Client, credentials, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { decodeHealthCheckResponse, encodeHealthCheckRequest, SERVING_STATUS } from './grpc-health.js';
import type { Prober, ProbeResult } from './prober.js';

interface GrpcOptions {
  tls?: boolean;
  verify_tls?: boolean;
  service?: string;
}

export function grpcProber(): Prober {
  return {
    family: 'GRPC',
    probe(target, signal) {
      const o = target.options as GrpcOptions;
      if (!parseHostPort(target.endpoint)) return Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const channelCredentials = o.tls
        ? credentials.createSsl(null, null, null, o.verify_tls === false ? { rejectUnauthorized: false } : {})
        : credentials.createInsecure();
      // A fresh channel per check: nothing is shared with other checks or reused.
      const client = new Client(target.endpoint, channelCredentials, { 'grpc.use_local_subchannel_pool': 1 });
      return new Promise<ProbeResult>((resolve) => {
        const call = client.makeUnaryRequest(
          '/grpc.health.v1.Health/Check',
          encodeHealthCheckRequest,
          decodeHealthCheckResponse,
          o.service ?? '',
          { deadline: Date.now() + target.timeoutMs },
          (err: ServiceError | null, status?: number) => {
            signal.removeEventListener('abort', onAbort);
            client.close();
            const responseTimeMs = elapsed();
            if (err?.code === GrpcStatus.UNIMPLEMENTED) {
              resolve({ ok: true, responseTimeMs, message: 'connection established (health service not implemented)', details: { grpc_status: 'UNIMPLEMENTED' } });
            } else if (err) {
              const timedOut = err.code === GrpcStatus.DEADLINE_EXCEEDED || err.code === GrpcStatus.CANCELLED;
              resolve({ ok: false, responseTimeMs, message: timedOut ? `timed out after ${target.timeoutMs} ms` : `gRPC ${GrpcStatus[err.code]}: ${err.details}`, details: { grpc_status: GrpcStatus[err.code] ?? String(err.code) } });
            } else {
              const name = SERVING_STATUS[status ?? 0] ?? `status ${status}`;
              resolve({ ok: status === 1, responseTimeMs, message: `gRPC health ${name} in ${responseTimeMs} ms`, details: { serving_status: name } });
            }
          },
        );
        const onAbort = () => call.cancel();
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
