import { expect } from 'chai';
import { AgentConfigError, loadCheckConfig, loadRunConfig } from '../../../agent/src/config.js';
import { IANA_RDAP_BOOTSTRAP } from '../../../agent/src/probers/rdap-bootstrap.js';
import { domainProber } from '../../../agent/src/probers/domain.js';
import { defaultProbers } from '../../../agent/src/probers/index.js';
import type { ProbeResult } from '../../../agent/src/probers/prober.js';
import { createProberRegistry, type ProberRegistry } from '../../../agent/src/probers/registry.js';
import { parseCheckOptions } from '../../../shared/src/check-options.js';
import { endpointFormat } from '../../../shared/src/check-types.js';
import { endpointProblem } from '../../../shared/src/endpoints.js';
import { refusedEndpoint } from '../../fixtures/peers/net-fixtures.js';
import { startRdapServer, type RdapPeer } from '../../fixtures/peers/rdap-server.js';
import { poll } from '../../support/poll.js';

describe('domain prober', () => {
  let peer: RdapPeer;
  /** The agent's probers, told the test's bootstrap file as `run --rdap-bootstrap` tells them. */
  let agent: ProberRegistry;
  const check = (endpoint: string, options: Record<string, unknown> = {}, timeoutMs = 5_000): Promise<ProbeResult> => agent.run({ checkType: 'DOMAIN', endpoint, timeoutMs, options });
  const day = (iso: string) => iso.slice(0, 10);

  before(async () => {
    peer = await startRdapServer();
    agent = createProberRegistry(defaultProbers({ rdapBootstrapUrl: peer.bootstrapUrl }));
  });
  after(() => peer?.close());

  it('is GREEN with the days remaining, the registrar and the statuses', async () => {
    const r = await check('fresh.rdaptest');
    expect(r.ok, r.message).to.equal(true);
    expect(r.degraded).to.equal(undefined);
    expect(r.message).to.equal(`fresh.rdaptest expires in 200 days, on ${day(peer.expiries.fresh!)}`);
    expect(r.observed).to.deep.equal({ days_remaining: 200 });
    expect(r.details).to.include({ rdap_url: `${peer.base}domain/fresh.rdaptest`, registrar: 'Example Registrar, Inc.', expires_at: new Date(peer.expiries.fresh!).toISOString(), days_remaining: 200, warn_days: 30 });
    expect(r.details.status).to.deep.equal(['client transfer prohibited', 'active']);
    expect(r.details.rdap_ms).to.be.a('number');
  });

  it('is YELLOW with fewer than warn_days left', async () => {
    const r = await check('soon.rdaptest');
    expect(r.ok, r.message).to.equal(true);
    expect(r.degraded).to.equal(true);
    expect(r.message).to.equal(`soon.rdaptest expires in 10 days, on ${day(peer.expiries.soon!)}, under the 30-day warning`);
    const relaxed = await check('soon.rdaptest', { warn_days: 7 });
    expect(relaxed.degraded).to.equal(undefined);
  });

  it('is RED once expired', async () => {
    const r = await check('gone.rdaptest');
    expect(r.ok).to.equal(false);
    expect(r.message).to.equal(`gone.rdaptest expired 3 days ago, on ${day(peer.expiries.gone!)}`);
    expect(r.observed).to.deep.equal({ days_remaining: -3 });
  });

  it('is RED for a name the registry does not know', async () => {
    const r = await check('nobody.rdaptest');
    expect(r.ok).to.equal(false);
    expect(r.message).to.equal('nobody.rdaptest is not registered (RDAP 404)');
  });

  it('is GREEN without days_remaining when the registry publishes no expiration date', async () => {
    const r = await check('undated.rdaptest');
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.equal('undated.rdaptest: the registry publishes no expiration date');
    expect(r.observed).to.deep.equal({});
  });

  it('is RED when the answer is not RDAP JSON', async () => {
    const r = await check('garbage.rdaptest');
    expect(r.ok).to.equal(false);
    expect(r.message).to.equal('the RDAP answer is not an RDAP domain object (text/html)');
  });

  it("follows the registry's redirect to the registrar's service, a bounded number of times", async () => {
    const moved = await check('moved.rdaptest');
    expect(moved.ok, moved.message).to.equal(true);
    expect(moved.observed).to.deep.equal({ days_remaining: 100 });
    expect(moved.details.rdap_url).to.equal(`${peer.base}registrar/domain/moved.rdaptest`);

    const loop = await check('loop.rdaptest');
    expect(loop.ok).to.equal(false);
    expect(loop.message).to.equal('more than 5 RDAP redirects (last to /domain/loop.rdaptest)');
  });

  it("asks the service of the bootstrap file's longest matching zone, and fetches the file once", async () => {
    const r = await check('x.sub.rdaptest');
    expect(r.ok, r.message).to.equal(true);
    expect(peer.requests()).to.include('/sub/domain/x.sub.rdaptest');
    expect(peer.requests().filter((p) => p === '/bootstrap.json')).to.have.length(1);
  });

  it('is RED when the bootstrap file lists no service for the zone', async () => {
    const r = await check('example.zzz');
    expect(r.ok).to.equal(false);
    expect(r.message).to.equal('no RDAP service for .zzz in the IANA bootstrap file; set options.rdap_url');
  });

  it('asks options.rdap_url without the bootstrap file', async () => {
    const unreachableBootstrap = `http://${await refusedEndpoint()}/dns.json`;
    const registry = createProberRegistry([domainProber({ bootstrapUrl: unreachableBootstrap })]);
    const r = await registry.run({ checkType: 'DOMAIN', endpoint: 'fresh.rdaptest', timeoutMs: 5_000, options: { rdap_url: peer.base.replace(/\/$/, '') } });
    expect(r.ok, r.message).to.equal(true);
    expect(r.observed).to.deep.equal({ days_remaining: 200 });
  });

  it('says when the bootstrap file cannot be fetched or is not one', async () => {
    const refused = `http://${await refusedEndpoint()}/dns.json`;
    const cases: [string, string][] = [
      [refused, `the RDAP bootstrap file ${refused} could not be fetched: connection refused`],
      [peer.missingBootstrapUrl, `the RDAP bootstrap file ${peer.missingBootstrapUrl} could not be fetched: HTTP 404`],
      [peer.brokenBootstrapUrl, `${peer.brokenBootstrapUrl} is not an RDAP bootstrap file (RFC 7484)`],
    ];
    for (const [bootstrapUrl, message] of cases) {
      const r = await domainProber({ bootstrapUrl }).prepare({ checkType: 'DOMAIN', endpoint: 'fresh.rdaptest', timeoutMs: 5_000, options: {} })(new AbortController().signal);
      expect(r.ok).to.equal(false);
      expect(r.message).to.equal(message);
    }
  });

  it('is RED with "connection refused" when the RDAP server is down', async () => {
    const r = await check('fresh.rdaptest', { rdap_url: `http://${await refusedEndpoint()}/` });
    expect(r.ok).to.equal(false);
    expect(r.message).to.equal('RDAP: connection refused');
  });

  it('ends at its timeout against a server that never answers, and leaves no socket open', async () => {
    const started = Date.now();
    const r = await check('stall.rdaptest', {}, 600);
    expect(r.ok).to.equal(false);
    expect(r.message).to.equal('timed out after 600 ms');
    expect(Date.now() - started).to.be.within(550, 3_000);
    await poll(() => peer.open() === 0, { what: 'the probe to close its socket', timeoutMs: 3_000 });
  });

  it('leaves the verdict on the date to assertions on days_remaining', async () => {
    const atLeast = (days: number) => ({ assertions: [{ source: 'days_remaining', comparison: 'greater_than', target: days }] });
    const fresh = await check('fresh.rdaptest', atLeast(100));
    expect(fresh.ok, fresh.message).to.equal(true);
    expect(fresh.details.assertions).to.deep.equal([{ source: 'days_remaining', comparison: 'greater_than', target: 100, actual: '200', passed: true }]);

    const soon = await check('soon.rdaptest', atLeast(20));
    expect(soon.ok).to.equal(false);
    expect(soon.message).to.match(/days_remaining/);

    // The assertion alone judges: 10 days left is no warning to it, and an expired name may pass.
    const quiet = await check('soon.rdaptest', atLeast(5));
    expect([quiet.ok, quiet.degraded]).to.deep.equal([true, undefined]);
    const expiredButAsserted = await check('gone.rdaptest', atLeast(-7));
    expect(expiredButAsserted.ok, expiredButAsserted.message).to.equal(true);
  });

  describe('options', () => {
    it('takes an http(s) rdap_url and warn_days from 1 to 365', () => {
      const options = { rdap_url: 'https://rdap.example/', warn_days: 60 };
      expect(parseCheckOptions('DOMAIN', options)).to.deep.equal({ ok: true, options });
      for (const bad of [{ rdap_url: 'ftp://rdap.example/' }, { rdap_url: 'rdap.example' }, { warn_days: 0 }, { warn_days: 366 }, { warn_days: 2.5 }, { port: 43 }]) {
        expect(parseCheckOptions('DOMAIN', bad).ok, JSON.stringify(bad)).to.equal(false);
      }
      const ftp = parseCheckOptions('DOMAIN', { rdap_url: 'ftp://rdap.example/' });
      expect(ftp.ok ? [] : ftp.issues.map((i) => i.message)).to.deep.equal(['rdap_url is an http(s) URL, such as https://rdap.example/']);
    });

    it('offers days_remaining to assertions, and nothing of other families', () => {
      expect(parseCheckOptions('DOMAIN', { assertions: [{ source: 'days_remaining', comparison: 'greater_than', target: 30 }] }).ok).to.equal(true);
      expect(parseCheckOptions('DOMAIN', { assertions: [{ source: 'tls_days_remaining', comparison: 'greater_than', target: 30 }] }).ok).to.equal(false);
    });

    it('takes a registered domain name as endpoint, never an IP address', () => {
      const format = endpointFormat('DOMAIN');
      expect(endpointProblem(format, 'example.com')).to.equal(null);
      expect(endpointProblem(format, 'example.co.uk.')).to.equal(null);
      for (const bad of ['10.0.0.1', '::1', 'localhost', 'https://example.com/', 'example.com:443']) {
        expect(endpointProblem(format, bad), bad).to.equal('must be a registered domain name, such as example.com');
      }
    });
  });

  describe('agent configuration', () => {
    const run = { server: 'cp:9090', token: 't' };

    it("defaults to IANA's bootstrap file, and takes --rdap-bootstrap or OUTPOST_RDAP_BOOTSTRAP", () => {
      expect(loadRunConfig(run, {}).rdapBootstrap).to.equal(IANA_RDAP_BOOTSTRAP);
      expect(loadRunConfig(run, { OUTPOST_RDAP_BOOTSTRAP: 'http://mirror.lan/dns.json' }).rdapBootstrap).to.equal('http://mirror.lan/dns.json');
      expect(loadRunConfig({ ...run, rdapBootstrap: 'https://flag.lan/dns.json' }, { OUTPOST_RDAP_BOOTSTRAP: 'http://mirror.lan/dns.json' }).rdapBootstrap).to.equal('https://flag.lan/dns.json');
      expect(loadCheckConfig({}, {}).rdapBootstrap).to.equal(IANA_RDAP_BOOTSTRAP);
      expect(loadCheckConfig({}, { OUTPOST_RDAP_BOOTSTRAP: 'http://mirror.lan/dns.json' }).rdapBootstrap).to.equal('http://mirror.lan/dns.json');
    });

    it('refuses a bootstrap URL that is not http(s)', () => {
      expect(() => loadRunConfig({ ...run, rdapBootstrap: 'file:///etc/dns.json' }, {})).to.throw(AgentConfigError, /^invalid option --rdap-bootstrap: must be the http\(s\) URL/);
      expect(() => loadCheckConfig({}, { OUTPOST_RDAP_BOOTSTRAP: 'mirror.lan' })).to.throw(AgentConfigError, /^invalid option --rdap-bootstrap: must be the http\(s\) URL/);
    });
  });
});
