import { expect } from 'chai';
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

  itFailsLikeAnyProtocol('SSH', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^timed out after 1500 ms waiting for the SSH banner \(the server sent "HTTP\/1\.1 400 Bad Request"\)$/ });
});
