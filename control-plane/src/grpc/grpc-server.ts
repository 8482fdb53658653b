import { readFileSync } from 'node:fs';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { AgentServiceService } from '../../../shared/src/gen/agent_service.js';
import type { AgentGateway } from './agent-gateway.js';

export interface GrpcServer {
  port: number;
  stop(): Promise<void>;
}

export interface GrpcTls {
  certFile: string;
  keyFile: string;
  /** When set, agents must present a client certificate signed by this CA (mTLS). */
  clientCaFile?: string;
}

/** Serves the agent stream: over TLS when configured, else plaintext (loopback, trusted networks). */
export async function startGrpcServer(gateway: AgentGateway, host: string, port: number, tls?: GrpcTls): Promise<GrpcServer> {
  const credentials = tls
    ? ServerCredentials.createSsl(
        tls.clientCaFile ? readFileSync(tls.clientCaFile) : null,
        [{ cert_chain: readFileSync(tls.certFile), private_key: readFileSync(tls.keyFile) }],
        Boolean(tls.clientCaFile),
      )
    : ServerCredentials.createInsecure();
  const server = new Server({ 'grpc.keepalive_time_ms': 30_000, 'grpc.keepalive_permit_without_calls': 1 });
  server.addService(AgentServiceService, { connect: gateway.connect });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${port}`, credentials, (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    port: bound,
    stop: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), 5_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
