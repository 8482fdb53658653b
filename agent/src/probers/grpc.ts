// GRPC: the standard grpc.health.v1.Health/Check, spoken over a new HTTP/2 connection of
// our own (plaintext, or TLS with options.tls). SERVING passes; a server without the health
// service still passes as "connection established", and says so. The status answered is the
// `status` source; with an assertion on it, the assertion alone judges it. Owning the connection
// (rather than a grpc-js channel) lets the probe close it on every path, timeouts included.
import http2 from 'node:http2';
import { assertsOn } from '../../../shared/src/assertion-catalogue.js';
import { parseHostPort } from '../../../shared/src/endpoints.js';
import { frameMessage, GrpcCode, grpcCodeName, statusInHeaders } from '../grpc/wire.js';
import { decodeHealthCheckResponse, encodeHealthCheckRequest, SERVICE_UNKNOWN, SERVING, SERVING_STATUS } from './grpc-health.js';
import { describeNetworkError } from './network-errors.js';
import type { Prober, ProbeResult } from './prober.js';

export function grpcProber(): Prober<'GRPC'> {
  return {
    family: 'GRPC',
    prepare: (target) => (signal) => {
      const o = target.options;
      const statusAsserted = assertsOn(o.assertions, 'status');
      const address = parseHostPort(target.endpoint);
      if (!address) return Promise.resolve({ ok: false, responseTimeMs: 0, message: `bad endpoint ${target.endpoint}`, details: {} });
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const authority = `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
      const session = http2.connect(`${o.tls ? 'https' : 'http'}://${authority}`, o.tls ? { rejectUnauthorized: o.verify_tls ?? true } : {});
      return new Promise<ProbeResult>((resolve) => {
        let settled = false;
        const finish = (result: ProbeResult) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          session.destroy();
          resolve(result);
        };
        const fail = (message: string, details: ProbeResult['details'] = {}) => finish({ ok: false, responseTimeMs: elapsed(), message, details });
        const onAbort = () => fail(`timed out after ${target.timeoutMs} ms`);
        signal.addEventListener('abort', onAbort, { once: true });
        session.once('error', (err) => fail(describeNetworkError(err)));
        session.once('connect', () => {
          const connectMs = elapsed();
          const request = session.request({
            ':method': 'POST',
            ':path': '/grpc.health.v1.Health/Check',
            'content-type': 'application/grpc',
            te: 'trailers',
            'grpc-timeout': `${Math.max(1, target.timeoutMs - connectMs)}m`,
          });
          const chunks: Buffer[] = [];
          let headers: http2.IncomingHttpHeaders = {};
          request.on('response', (h) => (headers = h));
          request.on('data', (chunk: Buffer) => chunks.push(chunk));
          request.on('trailers', (trailers) => (headers = { ...headers, ...trailers }));
          request.once('error', (err) => fail(describeNetworkError(err)));
          request.once('end', () => {
            const details: ProbeResult['details'] = { connect_ms: connectMs };
            const grpcStatus = statusInHeaders(headers);
            if (!grpcStatus) return fail(`not a gRPC server (HTTP ${headers[':status'] ?? 'no status'})`, details);
            details.grpc_status = grpcCodeName(grpcStatus.code);
            if (grpcStatus.code === GrpcCode.UNIMPLEMENTED) {
              // An answer without a status: an assertion on it finds none.
              return finish({ ok: true, responseTimeMs: elapsed(), message: 'connection established (health service not implemented)', details, observed: {} });
            }
            if (grpcStatus.code === GrpcCode.NOT_FOUND) {
              // Check's answer for a service the server does not know (Watch sends SERVICE_UNKNOWN instead).
              details.serving_status = SERVICE_UNKNOWN;
              const message = `gRPC health ${SERVICE_UNKNOWN}: ${grpcStatus.details}`;
              return finish({ ok: statusAsserted, responseTimeMs: elapsed(), message, details, observed: { status: SERVICE_UNKNOWN } });
            }
            if (grpcStatus.code !== GrpcCode.OK) return fail(`gRPC ${details.grpc_status}: ${grpcStatus.details}`, details);
            const body = Buffer.concat(chunks);
            const status = body.length >= 5 ? decodeHealthCheckResponse(body.subarray(5, 5 + body.readUInt32BE(1))) : 0;
            const name = SERVING_STATUS[status] ?? `status ${status}`;
            details.serving_status = name;
            const ok = status === SERVING || statusAsserted;
            finish({ ok, responseTimeMs: elapsed(), message: `gRPC health ${name} in ${elapsed()} ms`, details, observed: { status: name } });
          });
          request.end(frameMessage(encodeHealthCheckRequest(o.service ?? '')));
        });
      });
    },
  };
}
