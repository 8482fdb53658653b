import { expect } from 'chai';
import { DNSMASQ, startDnsmasq } from '../../fixtures/peers/dnsmasq.js';
import { refusedEndpoint, udpListener } from '../../fixtures/peers/net-fixtures.js';
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

  it('is RED for a name that does not exist, a type without records and a refused query', async () => {
    const missing = await runProbe('DNS', 'nothing.outpost.test', { resolver: dns!.resolver });
    expect(missing).to.include({ ok: false, message: 'no such domain (NXDOMAIN)' });
    const noAaaa = await runProbe('DNS', 'outpost.test', { resolver: dns!.resolver, dns_record_type: 'AAAA' });
    expect(noAaaa).to.include({ ok: false, message: 'no AAAA records' });
    const elsewhere = await runProbe('DNS', 'example.org', { resolver: dns!.resolver });
    expect(elsewhere).to.include({ ok: false, message: 'the resolver refused the query (REFUSED)' });
  });

  it('is RED with "connection refused" when no resolver listens on the port', async () => {
    const r = await runProbe('DNS', 'www.outpost.test', { resolver: await refusedEndpoint() });
    expect(r).to.include({ ok: false, message: 'connection refused by the resolver' });
  });

  it('is RED when the resolver port answers something that is not DNS', async () => {
    const garbage = await udpListener(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'));
    try {
      const r = await runProbe('DNS', 'www.outpost.test', { resolver: garbage.endpoint }, 2_000);
      expect(r).to.include({ ok: false, message: 'not a DNS answer from the resolver' });
    } finally {
      await garbage.close();
    }
  });

  it('ends at its timeout when the resolver never answers', async () => {
    const silent = await udpListener();
    try {
      const started = Date.now();
      const r = await runProbe('DNS', 'www.outpost.test', { resolver: silent.endpoint }, 600);
      expect(r).to.include({ ok: false, message: 'timed out after 600 ms' });
      expect(Date.now() - started).to.be.within(550, 2_000);
      expect(silent.received()).to.be.greaterThan(0);
    } finally {
      await silent.close();
    }
  });
});
