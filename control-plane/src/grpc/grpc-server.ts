import { Server, ServerCredentials } from '@grpc/grpc-js';
import { AgentServiceService } from '../../../shared/src/gen/agent.js';
import type { AgentGateway } from './agent-gateway.js';

export interface GrpcServer {
  port: number;
  stop(): Promise<void>;
}

/** Serves the agent stream. Plaintext for now; TLS comes with remote agents (issue 5). */
export async function startGrpcServer(gateway: AgentGateway, host: string, port: number): Promise<GrpcServer> {
  const server = new Server({ 'grpc.keepalive_time_ms': 30_000, 'grpc.keepalive_permit_without_calls': 1 });
  server.addService(AgentServiceService, { connect: gateway.connect });
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${port}`, ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
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
