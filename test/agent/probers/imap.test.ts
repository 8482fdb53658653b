import { expect } from 'chai';
import { DOVECOT, startDovecot } from '../../fixtures/peers/dovecot.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

describe('imap prober', () => {
  let dovecot: Awaited<ReturnType<typeof startDovecot>> | undefined;
  before(async function () {
    this.timeout(20_000);
    peerBinary(DOVECOT, 'dovecot-imapd', this);
    dovecot = await startDovecot();
  });
  after(() => dovecot?.stop());

  it('is GREEN on the "* OK" banner of a real Dovecot, then logs out', async () => {
    const r = await runProbe('IMAP', dovecot!.endpoint);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^IMAP \* OK/);
    expect(r.details.banner_ms).to.be.a('number');
  });

  itFailsLikeAnyProtocol('IMAP', '220 smtp.example.com ESMTP\r\n');
});
