import { randomBytes } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import amqp, { type ChannelModel } from 'amqplib';
import { expect } from 'chai';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { endpointProblem } from '../../../shared/src/endpoints.js';
import { selfSignedCertificate } from '../../fixtures/peers/self-signed.js';
import { poll } from '../../support/poll.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

/** The machine's RabbitMQ, which lets guest/guest in from localhost. */
const RABBITMQ = 'amqp://127.0.0.1:5672';

interface TlsFront {
  endpoint: string;
  certificate: string;
  /** Connections to the broker still open. */
  open(): number;
  close(): Promise<void>;
}

/** A TLS front to the machine's RabbitMQ (which has no TLS listener), with a self-signed certificate for 127.0.0.1. */
async function tlsFront(): Promise<TlsFront> {
  const { key, cert } = selfSignedCertificate();
  const sockets = new Set<net.Socket>();
  const server = tls.createServer({ key, cert }, (client) => {
    const upstream = net.connect(5672, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => (sockets.delete(upstream), client.destroy()));
    client.on('close', () => upstream.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `amqps://127.0.0.1:${(server.address() as AddressInfo).port}`,
    certificate: cert,
    open: () => sockets.size,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('amqp prober', () => {
  let admin: ChannelModel;
  before(async () => {
    admin = await amqp.connect(RABBITMQ);
  });
  after(() => admin.close());

  it('is GREEN once logged in as guest with a channel open, and names the broker', async () => {
    const r = await runProbe('AMQP', RABBITMQ);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^AMQP channel open in \d+ ms$/);
    expect(r.details).to.have.keys('connect_ms', 'channel_ms', 'server');
    expect(r.details.server).to.match(/^RabbitMQ \d/);
    expect(r).to.not.have.property('observed');
  });

  it('takes the vhost from the path, "/" written %2F', async () => {
    const r = await runProbe('AMQP', `${RABBITMQ}/%2F`, { username: 'guest', password: 'guest' });
    expect(r.ok, r.message).to.equal(true);
  });

  describe('with a queue', () => {
    const queue = `outpost-test-${randomBytes(6).toString('hex')}`;
    const consumed = `${queue}-consumed`;
    before(async () => {
      const channel = await admin.createConfirmChannel();
      await channel.assertQueue(queue, { autoDelete: false });
      await channel.assertQueue(consumed, { autoDelete: false });
      channel.sendToQueue(queue, Buffer.from('one'));
      channel.sendToQueue(queue, Buffer.from('two'));
      await channel.waitForConfirms();
      await channel.consume(consumed, () => undefined);
    });
    after(async () => {
      const channel = await admin.createChannel();
      await channel.deleteQueue(queue);
      await channel.deleteQueue(consumed);
      await channel.close();
    });

    it('reads the message and consumer counts of a passive declare', async () => {
      const r = await runProbe('AMQP', RABBITMQ, { queue });
      expect(r.ok, r.message).to.equal(true);
      expect(r.message).to.match(new RegExp(`^AMQP queue ${queue}: 2 messages, 0 consumers in \\d+ ms$`));
      expect(r.observed).to.deep.equal({ message_count: 2, consumer_count: 0 });
      expect(r.details).to.include({ message_count: 2, consumer_count: 0 });
      expect(r.details.queue_ms).to.be.a('number');
      const other = await runProbe('AMQP', RABBITMQ, { queue: consumed });
      expect(other.message).to.match(new RegExp(`^AMQP queue ${consumed}: 0 messages, 1 consumer in \\d+ ms$`));
    });

    it('passes and fails assertions on the counts', async () => {
      const passing = await runProbe('AMQP', RABBITMQ, { queue, assertions: [{ source: 'message_count', comparison: 'equals', target: 2 }] });
      expect(passing.ok, passing.message).to.equal(true);
      expect(passing.details.assertions).to.deep.equal([{ source: 'message_count', comparison: 'equals', target: 2, actual: '2', passed: true }]);
      const failing = await runProbe('AMQP', RABBITMQ, { queue, assertions: [{ source: 'consumer_count', comparison: 'greater_or_equal', target: 1 }] });
      expect(failing).to.include({ ok: false, message: 'consumer_count greater_or_equal 1: got 0' });
    });

    it('is RED when the queue does not exist', async () => {
      const r = await runProbe('AMQP', RABBITMQ, { queue: `${queue}-missing` });
      expect(r).to.include({ ok: false, message: `queue "${queue}-missing" not found in vhost /` });
      expect(r.details).to.have.keys('connect_ms', 'channel_ms', 'server');
      expect(r).to.not.have.property('observed');
    });
  });

  it('is RED when the broker refuses the login', async () => {
    const wrong = await runProbe('AMQP', RABBITMQ, { username: 'guest', password: 'wrong' });
    expect(wrong).to.include({ ok: false, message: 'AMQP login refused: wrong username or password' });
    const unknown = await runProbe('AMQP', RABBITMQ, { username: 'nobody-here', password: 'x' });
    expect(unknown).to.include({ ok: false, message: 'AMQP login refused: wrong username or password' });
  });

  it('is RED when the vhost is unknown', async () => {
    const r = await runProbe('AMQP', `${RABBITMQ}/no-such-vhost`);
    expect(r).to.include({ ok: false, message: 'AMQP vhost no-such-vhost refused: unknown, or not allowed to this user' });
  });

  it('is RED when the port speaks MQTT', async () => {
    // Mosquitto drops a client that does not start with CONNECT.
    const r = await runProbe('AMQP', 'amqp://127.0.0.1:1883');
    expect(r).to.include({ ok: false, message: 'connection reset by peer' });
  });

  describe('over TLS', () => {
    let front: TlsFront;
    before(async () => {
      front = await tlsFront();
    });
    after(() => front.close());

    it('verifies the certificate, against ca_certificate when given, and closes its connection', async () => {
      const untrusted = await runProbe('AMQP', front.endpoint);
      expect(untrusted).to.include({ ok: false, message: 'TLS certificate is self-signed' });
      const trusted = await runProbe('AMQP', front.endpoint, { ca_certificate: front.certificate });
      expect(trusted.ok, trusted.message).to.equal(true);
      const unverified = await runProbe('AMQP', front.endpoint, { verify_tls: false });
      expect(unverified.ok, unverified.message).to.equal(true);
      await poll(() => front.open() === 0, { what: 'the probes to close their connections', timeoutMs: 3_000 });
    });

    it('is RED when TLS is spoken to a plaintext port', async () => {
      const r = await runProbe('AMQP', 'amqps://127.0.0.1:5672');
      expect(r).to.include({ ok: false, message: 'TLS handshake failed: wrong version number' });
    });
  });

  itFailsLikeAnyProtocol('AMQP', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^not an AMQP 0-9-1 server$/, endpointFor: (hostPort) => `amqp://${hostPort}` });

  describe('options', () => {
    const issues = (options: Record<string, unknown>) => {
      const parsed = parseCheckOptions('AMQP', options);
      return parsed.ok ? [] : parsed.issues;
    };

    it('takes a queue, credentials, TLS options and assertions on the counts', () => {
      const options = { queue: 'jobs', username: 'u', password: 'p', verify_tls: true, assertions: [{ source: 'message_count', comparison: 'less_than', target: 100 }] };
      expect(parseCheckOptions('AMQP', options)).to.deep.equal({ ok: true, options });
    });

    it('refuses assertions on the counts without a queue', () => {
      expect(issues({ assertions: [{ source: 'message_count', comparison: 'equals', target: 2 }] })).to.deep.equal([{ path: 'assertions.0.source', message: 'source message_count needs options.queue' }]);
      expect(issues({ assertions: [{ source: 'consumer_count', comparison: 'equals', target: 1 }] })).to.deep.equal([{ path: 'assertions.0.source', message: 'source consumer_count needs options.queue' }]);
    });

    it('refuses an empty queue name and an option of another family', () => {
      expect(issues({ queue: '' })).to.have.length(1);
      expect(issues({ topic: 'x' })).to.deep.equal([{ path: '', message: 'topic is not an option of check_type AMQP' }]);
    });

    it('takes an amqp:// or amqps:// URL with the vhost as path, without credentials', () => {
      expect(endpointProblem('amqp-url', 'amqp://rabbit.internal')).to.equal(null);
      expect(endpointProblem('amqp-url', 'amqps://rabbit.internal:5671/%2F')).to.equal(null);
      expect(endpointProblem('amqp-url', 'amqp://rabbit.internal/production')).to.equal(null);
      expect(endpointProblem('amqp-url', 'amqp://guest:guest@rabbit.internal/')).to.match(/^must not carry credentials/);
      expect(endpointProblem('amqp-url', 'amqp://rabbit.internal/?heartbeat=10')).to.equal('takes no query or fragment');
    });
  });
});
