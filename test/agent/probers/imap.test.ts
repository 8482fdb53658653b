import { expect } from 'chai';
import { DOVECOT, startDovecot } from '../../fixtures/peers/dovecot.js';
import { tcpListener } from '../../fixtures/peers/net-fixtures.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { poll } from '../../support/poll.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

describe('imap prober', () => {
  let dovecot: Awaited<ReturnType<typeof startDovecot>> | undefined;
  before(async function () {
    this.timeout(20_000);
    peerBinary(DOVECOT, 'dovecot-imapd', this);
    dovecot = await startDovecot();
  });
  after(() => dovecot?.stop());

  it('is GREEN on the "* OK" banner of a real Dovecot', async () => {
    const r = await runProbe('IMAP', dovecot!.endpoint);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^IMAP \* OK/);
    expect(r.details.banner_ms).to.be.a('number');
  });

  it('sends LOGOUT after the banner', async () => {
    const peer = await tcpListener('* OK IMAP4rev1 ready\r\n');
    try {
      expect((await runProbe('IMAP', peer.endpoint)).ok).to.equal(true);
      await poll(() => peer.received() === 'a1 LOGOUT\r\n', { what: 'the LOGOUT command' });
    } finally {
      await peer.close();
    }
  });

  it('is RED on a BYE banner', async () => {
    const full = await tcpListener('* BYE Too many connections\r\n');
    try {
      expect(await runProbe('IMAP', full.endpoint)).to.include({ ok: false, message: 'not an IMAP banner: "* BYE Too many connections"' });
    } finally {
      await full.close();
    }
  });

  describe('banner (assertions)', () => {
    it('observes the banner line of a real Dovecot, and an assertion on it decides', async () => {
      const r = await runProbe('IMAP', dovecot!.endpoint, { assertions: [{ source: 'banner', comparison: 'contains', target: 'Dovecot' }] });
      expect(r.ok, r.message).to.equal(true);
      expect(r.observed?.banner).to.match(/^\* OK .*Dovecot/);
      expect(r.details.assertions).to.deep.equal([{ source: 'banner', comparison: 'contains', target: 'Dovecot', actual: r.observed?.banner, passed: true }]);
      const wrong = await runProbe('IMAP', dovecot!.endpoint, { assertions: [{ source: 'banner', comparison: 'not_contains', target: 'Dovecot' }] });
      expect(wrong.ok).to.equal(false);
      expect(wrong.message).to.match(/^banner not_contains "Dovecot": got "\* OK/);
    });

    it('observes a banner the probe refuses', async () => {
      const full = await tcpListener('* BYE Too many connections\r\n');
      try {
        expect(await runProbe('IMAP', full.endpoint)).to.deep.include({ ok: false, observed: { banner: '* BYE Too many connections' } });
      } finally {
        await full.close();
      }
    });
  });

  itFailsLikeAnyProtocol('IMAP', { otherProtocol: '220 smtp.example.com ESMTP\r\n', otherProtocolMessage: /^not an IMAP banner: "220 smtp\.example\.com ESMTP"$/ });
});
