import { expect } from 'chai';
import { tcpListener } from '../../fixtures/peers/net-fixtures.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { SSHD, startSshd, type SshPeer } from '../../fixtures/peers/sshd.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

describe('ssh prober', () => {
  let sshd: SshPeer | undefined;
  before(async function () {
    this.timeout(20_000);
    peerBinary(SSHD, 'openssh-server', this);
    sshd = await startSshd();
  });
  after(() => sshd?.stop());

  it('is GREEN after the banner and a full key exchange, though the login is refused', async () => {
    const r = await runProbe('SSH', sshd!.endpoint);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^SSH-2\.0-OpenSSH_\S+ banner, kex ok$/);
    for (const phase of ['connect_ms', 'banner_ms', 'kex_ms']) expect(r.details[phase], phase).to.be.a('number');
    expect(r.details.server_ident).to.match(/^SSH-2\.0-OpenSSH/);
  });

  it('is GREEN when the given key logs in', async () => {
    const r = await runProbe('SSH', sshd!.endpoint, { username: sshd!.user, private_key: sshd!.clientKey });
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/login ok$/);
  });

  it('is RED when the given password is refused', async () => {
    const r = await runProbe('SSH', sshd!.endpoint, { username: 'nobody', password: 'wrong' });
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/login refused$/);
  });

  describe('banner (assertions)', () => {
    it('observes the identification string, and an assertion on it decides', async () => {
      const r = await runProbe('SSH', sshd!.endpoint, { assertions: [{ source: 'banner', comparison: 'matches', target: '^SSH-2\\.0-OpenSSH_' }] });
      expect(r.ok, r.message).to.equal(true);
      expect(r.observed?.banner).to.equal(r.details.server_ident);
      expect(r.details.assertions).to.deep.equal([{ source: 'banner', comparison: 'matches', target: '^SSH-2\\.0-OpenSSH_', actual: r.details.server_ident, passed: true }]);
      const old = await runProbe('SSH', sshd!.endpoint, { assertions: [{ source: 'banner', comparison: 'contains', target: 'OpenSSH_7' }] });
      expect(old.ok).to.equal(false);
      expect(old.message).to.match(/^banner contains "OpenSSH_7": got "SSH-2\.0-OpenSSH_/);
    });

    it('observes the identification string when the login after it fails', async () => {
      const r = await runProbe('SSH', sshd!.endpoint, { username: 'nobody', password: 'wrong' });
      expect(r.ok).to.equal(false);
      expect(r.observed?.banner).to.match(/^SSH-2\.0-OpenSSH/);
    });

    it('observes nothing from a server that never identifies itself', async () => {
      const http = await tcpListener('HTTP/1.1 400 Bad Request\r\n\r\n');
      try {
        expect(await runProbe('SSH', http.endpoint, {}, 600)).to.not.have.property('observed');
      } finally {
        await http.close();
      }
    });
  });

  itFailsLikeAnyProtocol('SSH', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^timed out after 1500 ms waiting for the SSH banner \(the server sent "HTTP\/1\.1 400 Bad Request"\)$/ });
});
