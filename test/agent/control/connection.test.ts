import { expect } from 'chai';
import { pino } from 'pino';
import { createBackoff } from '../../../agent/src/control/backoff.js';
import { createConnection, type Connection } from '../../../agent/src/control/connection.js';
import type { ControlMessage, Hello } from '../../../shared/src/gen/agent.js';
import { startFakeControlPlane, type FakeControlPlane } from '../../fixtures/fake-control-plane.js';
import { poll } from '../../support/poll.js';

const hello = (token = 'good-token'): Hello => ({ agentId: '6f1c1f5e-3c3a-4d8e-9c55-0d5f5a9e2b11', token, version: 'test', location: 'lab', capabilities: ['TCP'], hostname: 'box' });

describe('connection', () => {
  let cp: FakeControlPlane;
  const connections: Connection[] = [];
  let events: string[];
  let messages: ControlMessage[];
  let fatal: string[];

  const connect = (options: { token?: string; welcomeTimeoutMs?: number; random?: () => number; server?: string } = {}) => {
    const connection = createConnection({
      server: options.server ?? cp.address,
      hello: () => hello(options.token),
      logger: pino({ level: 'silent' }),
      backoff: createBackoff({ baseMs: 20, maxMs: 100, random: options.random }),
      welcomeTimeoutMs: options.welcomeTimeoutMs,
      handlers: {
        onWelcome: (seconds) => events.push(`welcome ${seconds}`),
        onMessage: (m) => messages.push(m),
        onDisconnected: () => events.push('disconnected'),
        onFatal: (reason) => fatal.push(reason),
      },
    });
    connections.push(connection);
    connection.start();
    return connection;
  };

  beforeEach(async () => {
    cp = await startFakeControlPlane({ heartbeatIntervalSeconds: 7 });
    events = [];
    messages = [];
    fatal = [];
  });
  afterEach(async () => {
    for (const c of connections.splice(0)) c.stop();
    await cp.stop();
  });

  describe('start', () => {
    it('says hello first and is connected only once welcomed', async () => {
      const connection = connect();
      expect(connection.send({ payload: { $case: 'heartbeat', value: { sentAtMs: 1, spoolDepth: 0 } } }), 'nothing is sent before the welcome').to.equal(false);
      await poll(() => connection.isConnected(), { what: 'the welcome' });
      expect(cp.hellos).to.deep.equal([hello()]);
      expect(events).to.deep.equal(['welcome 7']);
      expect(connection.send({ payload: { $case: 'heartbeat', value: { sentAtMs: 42, spoolDepth: 0 } } })).to.equal(true);
      await poll(() => cp.heartbeats.includes(42), { what: 'the heartbeat' });
    });

    it('hands every control message but the welcome to onMessage', async () => {
      const connection = connect();
      await poll(() => connection.isConnected(), { what: 'the welcome' });
      cp.runNow('svc-1');
      await poll(() => messages.length === 2, { what: 'the snapshot and the run-now' });
      expect(messages.map((m) => m.payload?.$case)).to.deep.equal(['snapshot', 'runNow']);
    });

    it('reconnects with a new hello when the control plane comes back', async () => {
      const connection = connect();
      await poll(() => connection.isConnected(), { what: 'the welcome' });
      await cp.stop();
      await poll(() => !connection.isConnected(), { what: 'the disconnect' });
      expect(events).to.deep.equal(['welcome 7', 'disconnected']);
      await cp.restart();
      await poll(() => connection.isConnected(), { what: 'the reconnect', timeoutMs: 15_000 });
      expect(cp.hellos.length).to.be.at.least(2);
      expect(events.at(-1)).to.equal('welcome 7');
      expect(fatal).to.deep.equal([]);
    });

    it('moves to the next control plane of a list when its replica dies, and sends a new hello there', async () => {
      const other = await startFakeControlPlane({ heartbeatIntervalSeconds: 9 });
      try {
        const connection = connect({ server: `${cp.address}, ${other.address}` });
        await poll(() => connection.isConnected(), { what: 'the welcome of the first' });
        expect(other.hellos).to.deep.equal([]);
        await cp.stop();
        await poll(() => other.hellos.length === 1 && connection.isConnected(), { what: 'the welcome of the second', timeoutMs: 15_000 });
        expect(events).to.deep.equal(['welcome 7', 'disconnected', 'welcome 9']);
      } finally {
        for (const c of connections.splice(0)) c.stop();
        await other.stop();
      }
    });

    it('stops for good with a clear reason when the token is refused', async () => {
      const refused = connect({ token: 'wrong', random: () => 0 });
      await poll(() => fatal.length === 1, { what: 'the fatal refusal' });
      expect(fatal[0]).to.equal('UNAUTHENTICATED: invalid agent token');
      // With a zero backoff a refused connection that dialled again would say hello on its open
      // channel at once, before a second agent has opened its own channel and been welcomed.
      const valid = connect();
      await poll(() => valid.isConnected(), { what: 'the valid agent' });
      expect(cp.hellos.map((h) => h.token)).to.deep.equal(['wrong', 'good-token']);
      expect(refused.isConnected()).to.equal(false);
      expect(fatal).to.have.length(1);
    });

    it('dials again when the hello gets no welcome in time', async () => {
      cp.welcomes = false;
      const connection = connect({ welcomeTimeoutMs: 150 });
      await poll(() => cp.hellos.length >= 2, { what: 'a second hello' });
      cp.welcomes = true;
      await poll(() => connection.isConnected(), { what: 'the welcome' });
      expect(fatal).to.deep.equal([]);
    });
  });

  describe('stop', () => {
    it('closes the stream and reports the disconnect', async () => {
      const connection = connect();
      await poll(() => cp.openStreams() === 1, { what: 'the open stream' });
      connection.stop();
      await poll(() => cp.openStreams() === 0, { what: 'the stream to close' });
      expect(connection.isConnected()).to.equal(false);
      expect(events).to.deep.equal(['welcome 7', 'disconnected']);
    });
  });
});
