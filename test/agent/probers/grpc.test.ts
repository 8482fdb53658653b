import { Server, ServerCredentials } from '@grpc/grpc-js';
import { expect } from 'chai';
import { HealthImplementation } from 'grpc-health-check';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

async function startGrpc(withHealth: boolean, statuses: Record<string, 'SERVING' | 'NOT_SERVING'> = {}): Promise<{ endpoint: string; server: Server }> {
  const server = new Server();
  if (withHealth) new HealthImplementation(statuses).addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { endpoint: `127.0.0.1:${port}`, server };
}

describe('grpc prober', () => {
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.forceShutdown()));
  const start = async (...args: Parameters<typeof startGrpc>) => {
    const started = await startGrpc(...args);
    servers.push(started.server);
    return started.endpoint;
  };

  it('is GREEN when the health service answers SERVING', async () => {
    const endpoint = await start(true, { '': 'SERVING' });
    const r = await runProbe('GRPC', endpoint);
    expect(r.ok, r.message).to.equal(true);
    expect(r.details).to.include({ serving_status: 'SERVING' });
  });

  it('asks about the named service, and is RED when it is NOT_SERVING', async () => {
    const endpoint = await start(true, { '': 'SERVING', 'billing.v1.Billing': 'NOT_SERVING' });
    const r = await runProbe('GRPC', endpoint, { service: 'billing.v1.Billing' });
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/NOT_SERVING/);
  });

  it('falls back to "connection established" when the health service is not implemented', async () => {
    const endpoint = await start(false);
    const r = await runProbe('GRPC', endpoint);
    expect(r).to.include({ ok: true, message: 'connection established (health service not implemented)' });
  });

  itFailsLikeAnyProtocol('GRPC', 'HTTP/1.1 400 Bad Request\r\n\r\n');
});
