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

  describe('answers and rcode (assertions)', () => {
    it('observes the answers as in details, and NOERROR', async () => {
      const r = await runProbe('DNS', 'www.outpost.test', { resolver: dns!.resolver });
      expect(r.observed).to.deep.equal({ answers: ['127.0.0.9'], rcode: 'NOERROR' });
      const mx = await runProbe('DNS', 'outpost.test', { resolver: dns!.resolver, dns_record_type: 'MX' });
      expect(mx.observed).to.deep.equal({ answers: ['10 mail.outpost.test'], rcode: 'NOERROR' });
    });

    it('observes the response code of an answer without records, and stays RED without assertions on it', async () => {
      const missing = await runProbe('DNS', 'nothing.outpost.test', { resolver: dns!.resolver });
      expect(missing).to.deep.include({ ok: false, observed: { answers: [], rcode: 'NXDOMAIN' } });
      expect(missing.details).to.include({ rcode: 'NXDOMAIN' });
      const noAaaa = await runProbe('DNS', 'outpost.test', { resolver: dns!.resolver, dns_record_type: 'AAAA' });
      expect(noAaaa).to.deep.include({ ok: false, observed: { answers: [], rcode: 'NOERROR' } });
      const elsewhere = await runProbe('DNS', 'example.org', { resolver: dns!.resolver });
      expect(elsewhere).to.deep.include({ ok: false, observed: { answers: [], rcode: 'REFUSED' } });
    });

    it('leaves any response code to an assertion on rcode, which decides', async () => {
      const rcodeIs = (target: string) => ({ resolver: dns!.resolver, assertions: [{ source: 'rcode', comparison: 'equals', target }] });
      const gone = await runProbe('DNS', 'nothing.outpost.test', rcodeIs('NXDOMAIN'));
      expect(gone.ok, gone.message).to.equal(true);
      expect(gone.details.assertions).to.deep.equal([{ source: 'rcode', comparison: 'equals', target: 'NXDOMAIN', actual: 'NXDOMAIN', passed: true }]);
      const closed = await runProbe('DNS', 'example.org', rcodeIs('REFUSED'));
      expect(closed.ok, closed.message).to.equal(true);
      const found = await runProbe('DNS', 'www.outpost.test', rcodeIs('NXDOMAIN'));
      expect(found).to.include({ ok: false, message: 'rcode equals "NXDOMAIN": got "NOERROR"' });
    });

    it('leaves an empty answer, but not a refusal, to assertions on the answers', async () => {
      const noAnswers = (name: string, type = 'A') => runProbe('DNS', name, { resolver: dns!.resolver, dns_record_type: type, assertions: [{ source: 'answers', comparison: 'not_exists' }] });
      const gone = await noAnswers('nothing.outpost.test');
      expect(gone.ok, gone.message).to.equal(true);
      const noAaaa = await noAnswers('outpost.test', 'AAAA');
      expect(noAaaa.ok, noAaaa.message).to.equal(true);
      const elsewhere = await noAnswers('example.org');
      expect(elsewhere).to.include({ ok: false, message: 'the resolver refused the query (REFUSED)' });
      const found = await noAnswers('www.outpost.test');
      expect(found).to.include({ ok: false, message: 'answers not_exists: got "127.0.0.9"' });
    });

    it('turns GREEN answers RED when an assertion on them fails', async () => {
      const r = await runProbe('DNS', 'www.outpost.test', { resolver: dns!.resolver, assertions: [{ source: 'answers', comparison: 'contains', target: '10.0.0.1' }] });
      expect(r).to.include({ ok: false, message: 'answers contains "10.0.0.1": got "127.0.0.9"' });
    });

    it('observes nothing when no answer came', async () => {
      const r = await runProbe('DNS', 'www.outpost.test', { resolver: await refusedEndpoint(), assertions: [{ source: 'rcode', comparison: 'exists' }] });
      expect(r.ok).to.equal(false);
      expect(r).to.not.have.property('observed');
    });
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
