import { expect } from 'chai';
import { createTestCa, daysFromNow, startTlsPeer, type LeafSpec, type TestCa, type TlsPeer } from '../../fixtures/peers/test-ca.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

const LOCAL_NAMES = 'DNS:localhost,IP:127.0.0.1';
const valid = (days: number): LeafSpec => ({ commonName: 'localhost', altNames: LOCAL_NAMES, notBefore: daysFromNow(-30), notAfter: daysFromNow(days) });

describe('tls certificate prober', () => {
  let ca: TestCa;
  const peers: TlsPeer[] = [];
  const serve = async (spec: LeafSpec, issuer = ca) => {
    const peer = await startTlsPeer(issuer.issue(spec));
    peers.push(peer);
    return peer;
  };
  before(function () {
    this.timeout(20_000);
    ca = createTestCa();
  });
  after(async () => {
    await Promise.all(peers.map((p) => p.close()));
    ca?.dispose();
  });

  it('is GREEN far from expiry, with the certificate, its chain and SNI set to the host name', async () => {
    const peer = await serve(valid(200));
    const r = await runProbe('TLS_CERTIFICATE', `localhost:${peer.port}`, { warn_days: 14, ca_certificate: ca.cert });
    expect(r.ok, r.message).to.equal(true);
    expect(r.degraded).to.not.equal(true);
    expect(r.message).to.match(/^certificate valid for 199 more days \(until \d{4}-\d\d-\d\d\)$/);
    expect(r.details).to.include({ subject: 'CN=localhost', issuer: 'CN=Outpost Test CA', days_remaining: 199, authorized: true, authorization_error: null, hostname_matches: true, warn_days: 14 });
    expect(Date.parse(String(r.details.valid_from))).to.be.closeTo(daysFromNow(-30).getTime(), 60_000);
    expect(Date.parse(String(r.details.valid_to))).to.be.closeTo(daysFromNow(200).getTime(), 60_000);
    expect(r.details.serial).to.match(/^[0-9A-F]+$/);
    expect(r.details.fingerprint256).to.match(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(r.details.chain).to.have.length(2);
    expect((r.details.chain as { subject: string }[]).map((c) => c.subject)).to.deep.equal(['CN=localhost', 'CN=Outpost Test CA']);
    expect(r.details.tls_ms).to.be.a('number');
    expect(peer.servernames()).to.deep.equal(['localhost']);
  });

  it('offers the days left to a tls_days_remaining assertion', async () => {
    const peer = await serve(valid(40));
    const assertions = (days: number) => [{ source: 'tls_days_remaining', comparison: 'greater_than', target: days }];
    const r = await runProbe('TLS_CERTIFICATE', `localhost:${peer.port}`, { ca_certificate: ca.cert, assertions: assertions(30) });
    expect(r.ok, r.message).to.equal(true);
    expect(r.details.assertions).to.deep.equal([{ source: 'tls_days_remaining', comparison: 'greater_than', target: 30, actual: '39', passed: true }]);
    const short = await runProbe('TLS_CERTIFICATE', `localhost:${peer.port}`, { ca_certificate: ca.cert, assertions: assertions(60) });
    expect(short.message).to.equal('tls_days_remaining greater_than 60: got 39');
  });

  it('sends no SNI to an IP address and checks the IP against the certificate', async () => {
    const peer = await serve(valid(100));
    const r = await runProbe('TLS_CERTIFICATE', peer.endpoint, { ca_certificate: ca.cert });
    expect(r.ok, r.message).to.equal(true);
    expect(peer.accepted()).to.equal(1);
    expect(peer.servernames()).to.deep.equal([]);
  });

  it('passes but degraded (YELLOW) with fewer days left than warn_days, and GREEN under a smaller warn_days', async () => {
    const peer = await serve(valid(6));
    const r = await runProbe('TLS_CERTIFICATE', peer.endpoint, { warn_days: 14, ca_certificate: ca.cert });
    expect(r).to.include({ ok: true, degraded: true });
    expect(r.message).to.match(/^certificate expires in 5 days \(on .*\), under the 14-day warning$/);
    const relaxed = await runProbe('TLS_CERTIFICATE', peer.endpoint, { warn_days: 3, ca_certificate: ca.cert });
    expect(relaxed.ok).to.equal(true);
    expect(relaxed.degraded).to.not.equal(true);
  });

  it('warns at 14 days when warn_days is not given', async () => {
    const peer = await serve(valid(10));
    expect(await runProbe('TLS_CERTIFICATE', peer.endpoint, { ca_certificate: ca.cert })).to.include({ ok: true, degraded: true });
  });

  it('is RED for an expired certificate, still reporting it, with negative days remaining', async () => {
    const peer = await serve({ ...valid(0), notBefore: daysFromNow(-90), notAfter: daysFromNow(-3) });
    const r = await runProbe('TLS_CERTIFICATE', peer.endpoint, { ca_certificate: ca.cert });
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^certificate expired on \d{4}-\d\d-\d\d$/);
    expect(r.details.days_remaining).to.equal(-4);
    expect(r.details.subject).to.equal('CN=localhost');
    expect(r.details.authorized).to.equal(false);
  });

  it('is RED for a certificate that is not valid yet', async () => {
    const peer = await serve({ ...valid(0), notBefore: daysFromNow(2), notAfter: daysFromNow(90) });
    const r = await runProbe('TLS_CERTIFICATE', peer.endpoint, { ca_certificate: ca.cert });
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^certificate is not valid before /);
  });

  it('is RED for a certificate issued for another name', async () => {
    const peer = await serve({ ...valid(100), commonName: 'intranet.example', altNames: 'DNS:intranet.example' });
    const r = await runProbe('TLS_CERTIFICATE', `localhost:${peer.port}`, { ca_certificate: ca.cert });
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^certificate does not match the host name: .*localhost/);
    expect(r.details).to.include({ hostname_matches: false, subject: 'CN=intranet.example' });
  });

  it('is RED for a certificate from a CA it does not trust, whether another CA or the system store', async function () {
    this.timeout(20_000);
    const stranger = createTestCa('Stranger CA');
    try {
      const peer = await serve(valid(100), stranger);
      for (const options of [{ ca_certificate: ca.cert }, {}]) {
        const r = await runProbe('TLS_CERTIFICATE', peer.endpoint, options);
        expect(r.ok, JSON.stringify(options)).to.equal(false);
        expect(r.message).to.match(/^certificate is not trusted: /);
        expect(r.details).to.include({ authorized: false, authorization_error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', issuer: 'CN=Stranger CA' });
      }
    } finally {
      stranger.dispose();
    }
  });

  itFailsLikeAnyProtocol('TLS_CERTIFICATE', { otherProtocol: 'SSH-2.0-OpenSSH_9.6\r\n', otherProtocolMessage: /^TLS handshake failed: wrong version number$/ });
});
