import { expect } from 'chai';
import { freePort } from '../../fixtures/peers/net-fixtures.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { startDaemon, waitForPort, type Daemon } from '../../fixtures/peers/daemon.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

const REDIS_SERVER = '/usr/bin/redis-server';

describe('redis prober', () => {
  it('is GREEN on +PONG from the Redis server of this machine', async () => {
    const r = await runProbe('REDIS', '127.0.0.1:6379');
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^Redis PONG in \d+ ms$/);
    expect(r.details.ping_ms).to.be.a('number');
  });

  describe('with a password', () => {
    let daemon: Daemon | undefined;
    let endpoint: string;
    before(async function () {
      peerBinary(REDIS_SERVER, 'redis-server', this);
      const port = await freePort();
      daemon = startDaemon(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', 's3cret-pass']);
      await waitForPort(port, daemon);
      endpoint = `127.0.0.1:${port}`;
    });
    after(() => daemon?.stop());

    it('authenticates first and is GREEN, with or without an ACL user name', async () => {
      expect((await runProbe('REDIS', endpoint, { password: 's3cret-pass' })).ok).to.equal(true);
      expect((await runProbe('REDIS', endpoint, { username: 'default', password: 's3cret-pass' })).ok).to.equal(true);
    });

    it('is RED with the server error when no or a wrong password is given', async () => {
      const none = await runProbe('REDIS', endpoint);
      expect(none.ok).to.equal(false);
      expect(none.message).to.match(/NOAUTH/);
      const wrong = await runProbe('REDIS', endpoint, { password: 'nope' });
      expect(wrong.ok).to.equal(false);
      expect(wrong.message).to.match(/AUTH refused/);
    });
  });

  itFailsLikeAnyProtocol('REDIS', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^not a Redis reply: "HTTP\/1\.1 400 Bad Request"$/ });
});

