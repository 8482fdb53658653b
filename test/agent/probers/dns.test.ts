import { expect } from 'chai';
import { DNSMASQ, startDnsmasq } from '../../fixtures/peers/dnsmasq.js';
import { refusedEndpoint, tcpListener } from '../../fixtures/peers/net-fixtures.js';
import { peerBinary } from '../../fixtures/peers/require-peer.js';
import { runProbe } from './probe-helpers.js';

describe('dns prober', () => {
  let dns: Awaited<ReturnType<typeof startDnsmasq>> | undefined;
  before(async function () {
    this.timeout(20_000);
    peerBinary(DNSMASQ, 'dnsmasq-base', this);
    dns = await startDnsmasq();
  });
  after(() => dns?.stop());

  it('is GREEN with the A answers of a real resolver', async () => {
    const r = await runProbe('DNS', 'www.outpost.test', { resolver: dns!.resolver });
    expect(r.ok, r.message).to.equal(true);
    expect(r.details.answers).to.deep.equal(['127.0.0.9']);
    expect(r.details.record_type).to.equal('A');
    expect(r.details.resolve_ms).to.be.a('number');
  });

  it('asks for the record type given', async () => {
    const mx = await runProbe('DNS', 'outpost.test', { resolver: dns!.resolver, dns_record_type: 'MX' });
    expect(mx.details.answers).to.deep.equal(['10 mail.outpost.test']);
    const txt = await runProbe('DNS', 'outpost.test', { resolver: dns!.resolver, dns_record_type: 'TXT' });
    expect(txt.details.answers).to.deep.equal(['hello from dnsmasq']);
  });

  it('checks the expected answer', async () => {
    expect((await runProbe('DNS', 'www.outpost.test', { resolver: dns!.resolver, expected_answer: '127.0.0.9' })).ok).to.equal(true);
    const wrong = await runProbe('DNS', 'www.outpost.test', { resolver: dns!.resolver, expected_answer: '10.1.2.3' });
    expect(wrong.ok).to.equal(false);
    expect(wrong.message).to.match(/do not include 10\.1\.2\.3/);
  });

  it('is RED for a name without records', async () => {
    const r = await runProbe('DNS', 'nothing.here.test', { resolver: dns!.resolver });
    expect(r.ok).to.equal(false);
  });

  it('is RED at its timeout when the resolver does not answer', async () => {
    const r = await runProbe('DNS', 'www.outpost.test', { resolver: await refusedEndpoint() }, 800);
    expect(r.ok).to.equal(false);
  });

  it('is RED when the resolver port speaks another protocol', async () => {
    const listener = await tcpListener('HTTP/1.1 400 Bad Request\r\n\r\n');
    try {
      expect((await runProbe('DNS', 'www.outpost.test', { resolver: listener.endpoint }, 800)).ok).to.equal(false);
    } finally {
      await listener.close();
    }
  });
});
