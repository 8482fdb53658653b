import { Server, ServerCredentials } from '@grpc/grpc-js';
import { expect } from 'chai';
import { HealthImplementation } from 'grpc-health-check';
import { selfSignedCertificate } from '../../fixtures/peers/self-signed.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

async function startGrpc(withHealth: boolean, statuses: Record<string, 'SERVING' | 'NOT_SERVING'> = {}, tls = false): Promise<{ endpoint: string; server: Server }> {
  const server = new Server();
  if (withHealth) new HealthImplementation(statuses).addToServer(server);
  const credentials = tls ? tlsCredentials() : ServerCredentials.createInsecure();
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', credentials, (err, p) => (err ? reject(err) : resolve(p))));
  return { endpoint: `127.0.0.1:${port}`, server };
}

function tlsCredentials(): ServerCredentials {
  const { key, cert } = selfSignedCertificate();
  return ServerCredentials.createSsl(null, [{ private_key: Buffer.from(key), cert_chain: Buffer.from(cert) }]);
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

  it('speaks TLS when asked, refusing an unverifiable certificate unless verify_tls is false', async () => {
    const endpoint = await start(true, { '': 'SERVING' }, true);
    const verified = await runProbe('GRPC', endpoint, { tls: true });
    expect(verified).to.include({ ok: false, message: 'TLS certificate is self-signed' });
    const unverified = await runProbe('GRPC', endpoint, { tls: true, verify_tls: false });
    expect(unverified.ok, unverified.message).to.equal(true);
    expect(unverified.details).to.include({ serving_status: 'SERVING' });
    const plaintext = await runProbe('GRPC', endpoint);
    expect(plaintext.ok, 'plaintext against a TLS port').to.equal(false);
  });

  describe('status (assertions)', () => {
    const statusIs = (target: string) => ({ assertions: [{ source: 'status', comparison: 'equals', target }] });

    it('observes the health status name', async () => {
      const endpoint = await start(true, { '': 'SERVING', 'billing.v1.Billing': 'NOT_SERVING' });
      expect((await runProbe('GRPC', endpoint)).observed).to.deep.equal({ status: 'SERVING' });
      const down = await runProbe('GRPC', endpoint, { service: 'billing.v1.Billing' });
      expect(down).to.deep.include({ ok: false, observed: { status: 'NOT_SERVING' } });
    });

    it('leaves a NOT_SERVING answer to an assertion on the status, which decides', async () => {
      const endpoint = await start(true, { '': 'SERVING', 'billing.v1.Billing': 'NOT_SERVING' });
      const expected = await runProbe('GRPC', endpoint, { service: 'billing.v1.Billing', ...statusIs('NOT_SERVING') });
      expect(expected.ok, expected.message).to.equal(true);
      expect(expected.details.assertions).to.deep.equal([{ source: 'status', comparison: 'equals', target: 'NOT_SERVING', actual: 'NOT_SERVING', passed: true }]);
      const unexpected = await runProbe('GRPC', endpoint, statusIs('NOT_SERVING'));
      expect(unexpected).to.include({ ok: false, message: 'status equals "NOT_SERVING": got "SERVING"' });
    });

    it('observes SERVICE_UNKNOWN for a service the health service does not know (NOT_FOUND)', async () => {
      const endpoint = await start(true, { '': 'SERVING' });
      const r = await runProbe('GRPC', endpoint, { service: 'nobody.v1.Nothing' });
      expect(r).to.deep.include({ ok: false, observed: { status: 'SERVICE_UNKNOWN' } });
      expect(r.message).to.match(/^gRPC health SERVICE_UNKNOWN: /);
      const asserted = await runProbe('GRPC', endpoint, { service: 'nobody.v1.Nothing', ...statusIs('SERVICE_UNKNOWN') });
      expect(asserted.ok, asserted.message).to.equal(true);
    });

    it('observes no status without a health service, so an assertion on it fails', async () => {
      const endpoint = await start(false);
      const r = await runProbe('GRPC', endpoint, statusIs('SERVING'));
      expect(r.observed).to.deep.equal({});
      expect(r).to.include({ ok: false, message: 'status equals "SERVING": got nothing' });
    });
  });

  itFailsLikeAnyProtocol('GRPC', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^not an HTTP\/2 server/ });
});
