import { randomBytes } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { expect } from 'chai';
import { connect, type NatsConnection } from 'nats';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { NATS_SERVER, startNatsServer, type NatsServer } from '../../fixtures/peers/nats-server.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { poll } from '../../support/poll.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

/** The machine's NATS server (no authentication). */
const MACHINE_NATS = 'nats://127.0.0.1:4222';
const PROBE_NAME = 'outpost-probe';
const messageIs = (target: string) => ({ assertions: [{ source: 'message', comparison: 'equals', target }] });

describe('nats prober', () => {
  // Subjects of this run only: other test runs may share the machine's server.
  const subject = `outpost.test.${randomBytes(4).toString('hex')}`;
  let responder: NatsConnection | undefined;
  before(async () => {
    responder = await connect({ servers: MACHINE_NATS, name: 'outpost-test-responder' });
    responder.subscribe(`${subject}.echo`, { callback: (_err, m) => m.respond(`pong:${m.string()}`) });
    await responder.flush();
  });
  after(() => responder?.close());

  it('is GREEN on a PONG, with the server version and the timings', async () => {
    const r = await runProbe('NATS', MACHINE_NATS);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^NATS \d+\.\d+\.\d+ PONG in \d+ ms$/);
    expect(r.details.server_version).to.match(/^\d+\.\d+\.\d+/);
    expect(r.details.connect_ms).to.be.a('number');
    expect(r.details.ping_ms).to.be.a('number');
    expect(r).to.not.have.property('observed');
  });

  it('sends a request with the payload and observes the reply as the message', async () => {
    const r = await runProbe('NATS', MACHINE_NATS, { subject: `${subject}.echo`, payload: 'hello' });
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(new RegExp(`^NATS reply on ${subject}\\.echo in \\d+ ms$`));
    expect(r.observed).to.deep.equal({ message: 'pong:hello' });
    expect(r.details.request_ms).to.be.a('number');
    const empty = await runProbe('NATS', MACHINE_NATS, { subject: `${subject}.echo` });
    expect(empty.observed).to.deep.equal({ message: 'pong:' });
  });

  it('passes and fails assertions on the message', async () => {
    const passing = await runProbe('NATS', MACHINE_NATS, { subject: `${subject}.echo`, payload: 'x', ...messageIs('pong:x') });
    expect(passing.ok, passing.message).to.equal(true);
    expect(passing.details.assertions).to.deep.equal([{ source: 'message', comparison: 'equals', target: 'pong:x', actual: 'pong:x', passed: true }]);
    const failing = await runProbe('NATS', MACHINE_NATS, { subject: `${subject}.echo`, payload: 'y', ...messageIs('pong:x') });
    expect(failing).to.include({ ok: false, message: 'message equals "pong:x": got "pong:y"' });
  });

  it('is RED when no one listens on the subject', async () => {
    const r = await runProbe('NATS', MACHINE_NATS, { subject: `${subject}.nobody` });
    expect(r).to.include({ ok: false, message: `no responder on subject ${subject}.nobody` });
  });

  it('is RED when a tls:// endpoint meets a server without TLS', async () => {
    const r = await runProbe('NATS', MACHINE_NATS.replace('nats:', 'tls:'));
    expect(r).to.include({ ok: false, message: 'the NATS server does not offer TLS' });
  });

  describe('with a user and password, or a token, required', () => {
    let withPassword: NatsServer | undefined;
    let withToken: NatsServer | undefined;
    before(async function () {
      this.timeout(20_000);
      peerBinary(NATS_SERVER, 'nats-server', this);
      withPassword = await startNatsServer({ user: 'probe', pass: 's3cret' });
      withToken = await startNatsServer({ token: 't0ken' });
    });
    after(async () => {
      await withPassword?.stop();
      await withToken?.stop();
    });

    it('logs in and is GREEN with the right credentials', async () => {
      const password = await runProbe('NATS', withPassword!.endpoint, { username: 'probe', password: 's3cret' });
      expect(password.ok, password.message).to.equal(true);
      const token = await runProbe('NATS', withToken!.endpoint, { token: 't0ken' });
      expect(token.ok, token.message).to.equal(true);
    });

    it('is RED with "NATS authorization violation" for wrong or missing credentials', async () => {
      const violation = { ok: false, message: 'NATS authorization violation' };
      expect(await runProbe('NATS', withPassword!.endpoint, { username: 'probe', password: 'wrong' })).to.include(violation);
      expect(await runProbe('NATS', withPassword!.endpoint)).to.include(violation);
      expect(await runProbe('NATS', withToken!.endpoint, { token: 'wrong' })).to.include(violation);
    });

    it('ends at its timeout when the reply never comes, and closes its connection', async () => {
      // Subscribed, never answering: a request to it waits until the timeout.
      const listener = await connect({ servers: withToken!.endpoint, token: 't0ken' });
      try {
        listener.subscribe('svc.silent', { callback: () => undefined });
        await listener.flush();
        const started = Date.now();
        const r = await runProbe('NATS', withToken!.endpoint, { token: 't0ken', subject: 'svc.silent' }, 600);
        expect(r).to.include({ ok: false, message: 'timed out after 600 ms' });
        expect(Date.now() - started).to.be.within(550, 2_000);
        expect(r.details.connect_ms).to.be.a('number');
        await poll(async () => (await withToken!.connections(PROBE_NAME)) === 0, { what: 'the probe to close its connection', timeoutMs: 3_000 });
      } finally {
        await listener.close();
      }
    });

    it('closes its connection after every check', async () => {
      await runProbe('NATS', withPassword!.endpoint, { username: 'probe', password: 's3cret' });
      await runProbe('NATS', withPassword!.endpoint, { username: 'probe', password: 'wrong' });
      await poll(async () => (await withPassword!.connections(PROBE_NAME)) === 0, { what: 'the probe to close its connections', timeoutMs: 3_000 });
    });
  });

  it("says what went wrong after the server's INFO: a bad INFO, an -ERR, a close", async () => {
    const info = 'INFO {"server_id":"stand-in","version":"2.10.0"}\r\n';
    const cases: [(socket: net.Socket) => void, string][] = [
      [(s) => s.write('INFO {not json}\r\n'), 'not a NATS server (its INFO is not JSON)'],
      [(s) => (s.write(info), s.once('data', () => s.end("-ERR 'maximum connections exceeded'\r\n"))), 'NATS error: maximum connections exceeded'],
      [(s) => (s.write(info), s.once('data', () => s.end())), 'the server closed the connection'],
    ];
    for (const [behave, message] of cases) {
      const sockets = new Set<net.Socket>();
      const server = net.createServer((socket) => (sockets.add(socket), behave(socket)));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const r = await runProbe('NATS', `nats://127.0.0.1:${(server.address() as AddressInfo).port}`, {}, 1_500);
        expect(r).to.include({ ok: false, message });
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((r) => server.close(r));
      }
    }
  });

  itFailsLikeAnyProtocol('NATS', {
    otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n',
    otherProtocolMessage: /^not a NATS server \(its first line is not INFO\)$/,
    endpointFor: (hostPort) => `nats://${hostPort}`,
  });

  describe('options', () => {
    it('takes a token, or a username and password, and a subject with a payload', () => {
      expect(parseCheckOptions('NATS', { token: 't', subject: 'svc.ping', payload: 'hi', assertions: [{ source: 'message', comparison: 'contains', target: 'ok' }] }).ok).to.equal(true);
      expect(parseCheckOptions('NATS', { username: 'u', password: 'p' }).ok).to.equal(true);
    });

    it('refuses a token with a username, a password alone, and a payload without a subject', () => {
      expect(parseCheckOptions('NATS', { token: 't', username: 'u' })).to.deep.equal({ ok: false, issues: [{ path: 'token', message: 'a token or a username and password: choose one' }] });
      expect(parseCheckOptions('NATS', { password: 'p' })).to.deep.equal({ ok: false, issues: [{ path: 'username', message: 'a password goes with a username' }] });
      expect(parseCheckOptions('NATS', { payload: 'x' })).to.deep.equal({ ok: false, issues: [{ path: 'subject', message: 'a payload is sent to a subject: give subject too' }] });
    });

    it('refuses an assertion on the message without a subject', () => {
      expect(parseCheckOptions('NATS', messageIs('x'))).to.deep.equal({ ok: false, issues: [{ path: 'assertions.0.source', message: 'source message needs options.subject' }] });
    });
  });
});
