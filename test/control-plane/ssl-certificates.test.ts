// SSL certificate watches against real TLS servers on 127.0.0.1 with certificates made for
// the test, checked by the control plane's embedded agent (location `local`).
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';
import { createTestCa, daysFromNow, startTlsPeer, type LeafSpec, type TestCa, type TlsPeer } from '../fixtures/peers/test-ca.js';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';

const LOCAL_NAMES = 'DNS:localhost,IP:127.0.0.1';
const leaf = (notAfterDays: number, notBeforeDays = -30): LeafSpec => ({ commonName: 'localhost', altNames: LOCAL_NAMES, notBefore: daysFromNow(notBeforeDays), notAfter: daysFromNow(notAfterDays) });
/** Where no agent runs: a watch there is never checked. */
const NOWHERE = 'nowhere';

describe('ssl certificates', () => {
  let cp: TestControlPlane;
  let receiver: HttpReceiver;
  let ca: TestCa;
  let stranger: TestCa;
  const peers: Record<'green' | 'yellow' | 'expired' | 'untrusted' | 'otherName', TlsPeer> = {} as never;

  before(async function () {
    this.timeout(60_000);
    ca = createTestCa();
    stranger = createTestCa('Stranger CA');
    peers.green = await startTlsPeer(ca.issue(leaf(200)));
    peers.yellow = await startTlsPeer(ca.issue(leaf(6)));
    peers.expired = await startTlsPeer(ca.issue(leaf(-3, -90)));
    peers.untrusted = await startTlsPeer(stranger.issue(leaf(200)));
    peers.otherName = await startTlsPeer(ca.issue({ ...leaf(200), commonName: 'intranet.example', altNames: 'DNS:intranet.example' }));
    receiver = await startHttpReceiver();
    cp = await startTestControlPlane({ embeddedAgent: true, start: { jobIntervalMs: 100, retry: { maxAttempts: 3, baseDelayMs: 50 } } });
  });
  after(async () => {
    await cp?.stop();
    await receiver?.close();
    await Promise.all(Object.values(peers).map((p) => p.close()));
    ca?.dispose();
    stranger?.dispose();
  });

  const watch = (u: TestUser, body: Record<string, unknown>) => cp.api.post('/ssl-certificates', { ca_certificate: ca.cert, ...body }, u.token);
  const settled = (u: TestUser, id: string, status: string) =>
    poll(async () => {
      const r = await cp.api.get(`/ssl-certificates/${id}`, u.token);
      return r.body?.status === status && r.body;
    }, { what: `ssl certificate ${id} to be ${status}`, timeoutMs: 15_000 });

  describe('checks by the agent of its location', () => {
    it('goes GREEN with the certificate facts, through a daily TLS_CERTIFICATE service it owns', async function () {
      this.timeout(30_000);
      const u = await cp.api.newUser('ssl-green');
      const created = await watch(u, { hostname: 'localhost', port: peers.green.port });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ organization_id: u.orgId, name: `localhost:${peers.green.port}`, hostname: 'localhost', port: peers.green.port, warn_days: 14, location: 'local', ca_certificate: ca.cert });
      expect(created.body.service_id).to.match(/^[0-9a-f-]{36}$/);
      expect(created.body.created_at).to.match(/Z$/);

      const green = await settled(u, created.body.id, 'GREEN');
      expect(green).to.include({ subject: 'CN=localhost', issuer: 'CN=Outpost Test CA', days_remaining: 199 });
      expect(Date.parse(green.valid_from)).to.be.closeTo(daysFromNow(-30).getTime(), 120_000);
      expect(Date.parse(green.valid_to)).to.be.closeTo(daysFromNow(200).getTime(), 120_000);
      expect(green.message).to.match(/^certificate valid for 199 more days/);
      expect(green.last_checked_at).to.match(/Z$/);

      const service = (await cp.api.get(`/services/${green.service_id}`, u.token)).body;
      expect(service).to.include({ check_type: 'TLS_CERTIFICATE', endpoint: `localhost:${peers.green.port}`, check_interval_seconds: 86400, timeout_seconds: 15, status: 'GREEN' });
      expect(service.locations).to.deep.equal(['local']);
      const [result] = (await cp.api.get(`/services/${green.service_id}/checks`, u.token)).body;
      expect(result.details.chain.map((c: { subject: string }) => c.subject)).to.deep.equal(['CN=localhost', 'CN=Outpost Test CA']);
      expect(result.details).to.include({ authorized: true, hostname_matches: true });
      expect((await cp.api.get('/ssl-certificates', u.token)).body.map((c: { id: string }) => c.id)).to.deep.equal([green.id]);
    });

    it('goes YELLOW with fewer days left than warn_days', async function () {
      this.timeout(30_000);
      const u = await cp.api.newUser('ssl-yellow');
      const created = (await watch(u, { hostname: '127.0.0.1', port: peers.yellow.port, warn_days: 30 })).body;
      const yellow = await settled(u, created.id, 'YELLOW');
      expect(yellow.days_remaining).to.equal(5);
      expect(yellow.message).to.match(/under the 30-day warning/);
    });

    for (const [label, peer, body, message, days] of [
      ['expired', 'expired', {}, /^certificate expired on /, -4],
      ['signed by a CA it does not trust (the system store)', 'untrusted', { ca_certificate: null }, /^certificate is not trusted/, 199],
      ['issued for another name', 'otherName', { hostname: 'localhost' }, /^certificate does not match the host name/, 199],
    ] as const) {
      it(`goes RED for a certificate ${label}`, async function () {
        this.timeout(30_000);
        const u = await cp.api.newUser('ssl-red');
        const created = (await watch(u, { hostname: '127.0.0.1', port: peers[peer].port, ...body })).body;
        const red = await settled(u, created.id, 'RED');
        expect(red.message).to.match(message);
        expect(red.days_remaining).to.equal(days);
        expect(red.subject).to.be.a('string');
      });
    }

    it('is null before its first check', async () => {
      const u = await cp.api.newUser('ssl-unchecked');
      const created = await watch(u, { hostname: 'db.internal', location: NOWHERE });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ port: 443, status: null, subject: null, issuer: null, valid_from: null, valid_to: null, days_remaining: null, last_checked_at: null, message: null });
    });
  });

  it('fires an alert for a RED certificate and resolves it when the watch is fixed', async function () {
    this.timeout(40_000);
    const u = await cp.api.newUser('ssl-alert');
    const path = `/ssl-${randomUUID()}`;
    await cp.api.post('/notification-channels', { name: 'hook', channel_type: 'webhook', config: { url: `${receiver.url}${path}` } }, u.token);
    const created = (await watch(u, { name: 'intranet cert', hostname: '127.0.0.1', port: peers.expired.port })).body;
    const rule = await cp.api.post('/alert-rules', { name: 'certificates', severity: 'critical', service_id: created.service_id, condition: { statuses: ['RED'] } }, u.token);
    expect(rule.status, rule.text).to.equal(201);
    // The rule may be created after the first result: check again so it sees one.
    expect((await cp.api.post(`/ssl-certificates/${created.id}/check`, {}, u.token)).status).to.equal(202);
    const fired = await receiver.waitFor((q) => q.url === path && q.json?.event === 'alert_fired', 'the alert for the expired certificate');
    expect(fired.json.alert.title).to.equal('intranet cert is RED');
    const alerts = (await cp.api.get(`/alerts?service_id=${created.service_id}`, u.token)).body;
    expect(alerts).to.have.length(1);

    const fixed = await cp.api.put(`/ssl-certificates/${created.id}`, { port: peers.green.port }, u.token);
    expect(fixed.status, fixed.text).to.equal(200);
    await settled(u, created.id, 'GREEN');
    await receiver.waitFor((q) => q.url === path && q.json?.event === 'alert_resolved', 'the resolve once the certificate is valid');
  });

  describe('routes', () => {
    it('checks on demand: POST /{id}/check answers 202 and a new result arrives', async function () {
      this.timeout(30_000);
      const u = await cp.api.newUser('ssl-check');
      const created = (await watch(u, { hostname: '127.0.0.1', port: peers.green.port })).body;
      await settled(u, created.id, 'GREEN');
      const checks = () => cp.api.get(`/services/${created.service_id}/checks`, u.token).then((r) => r.body as unknown[]);
      expect(await checks()).to.have.length(1);
      const r = await cp.api.post(`/ssl-certificates/${created.id}/check`, {}, u.token);
      expect(r.status).to.equal(202);
      expect(r.body).to.deep.equal({ status: 'check enqueued' });
      await poll(async () => (await checks()).length === 2, { what: 'the on-demand result' });
    });

    it('updates: the owned service and the agent follow, echoed read-only fields are ignored', async function () {
      this.timeout(30_000);
      const u = await cp.api.newUser('ssl-update');
      const created = (await watch(u, { hostname: '127.0.0.1', port: peers.yellow.port })).body;
      const yellow = await settled(u, created.id, 'YELLOW');
      const relaxed = await cp.api.put(`/ssl-certificates/${created.id}`, { ...yellow, warn_days: 3 }, u.token);
      expect(relaxed.status, relaxed.text).to.equal(200);
      expect(relaxed.body).to.include({ warn_days: 3, name: `127.0.0.1:${peers.yellow.port}` });
      await settled(u, created.id, 'GREEN');

      const moved = (await cp.api.put(`/ssl-certificates/${created.id}`, { hostname: 'localhost', port: peers.green.port, location: NOWHERE, ca_certificate: null }, u.token)).body;
      expect(moved).to.include({ hostname: 'localhost', port: peers.green.port, location: NOWHERE, ca_certificate: null, name: `localhost:${peers.green.port}` });
      expect(Date.parse(moved.updated_at)).to.be.at.least(Date.parse(created.updated_at));
      const service = (await cp.api.get(`/services/${created.service_id}`, u.token)).body;
      expect(service).to.include({ endpoint: `localhost:${peers.green.port}`, name: `localhost:${peers.green.port}` });
      expect(service.locations).to.deep.equal([NOWHERE]);
      expect(service.options).to.deep.equal({ warn_days: 3 });

      const renamed = (await cp.api.put(`/ssl-certificates/${created.id}`, { name: 'www', port: 8443 }, u.token)).body;
      expect(renamed).to.include({ name: 'www', port: 8443 });
      expect((await cp.api.put(`/ssl-certificates/${created.id}`, { port: 9443 }, u.token)).body.name, 'a chosen name stays').to.equal('www');
    });

    it('keeps its service out of /services writes and the internal type out of POST /services', async () => {
      const u = await cp.api.newUser('ssl-internal');
      const created = (await watch(u, { hostname: 'example.com', location: NOWHERE })).body;
      const put = await cp.api.put(`/services/${created.service_id}`, { name: 'sneaky' }, u.token);
      expect(put.status).to.equal(400);
      expect(put.body.error).to.match(/ssl-certificates/);
      const post = await cp.api.post('/services', { name: 'x', endpoint: 'example.com:443', check_type: 'tls_certificate' }, u.token);
      expect(post.status).to.equal(400);
      expect(post.body.error).to.match(/unsupported check_type/);
    });

    it('deletes the watch with its service', async () => {
      const u = await cp.api.newUser('ssl-delete');
      const created = (await watch(u, { hostname: 'example.com', location: NOWHERE })).body;
      const r = await cp.api.del(`/ssl-certificates/${created.id}`, u.token);
      expect(r.status).to.equal(204);
      expect(r.text).to.equal('');
      expect((await cp.api.get(`/ssl-certificates/${created.id}`, u.token)).status).to.equal(404);
      expect((await cp.api.get(`/services/${created.service_id}`, u.token)).status).to.equal(404);
      expect((await cp.api.get('/ssl-certificates', u.token)).body).to.deep.equal([]);
    });

    const invalid: [string, Record<string, unknown>][] = [
      ['a missing hostname', { hostname: undefined }],
      ['an empty hostname', { hostname: '  ' }],
      ['a hostname with a scheme', { hostname: 'https://example.com' }],
      ['a hostname with a port', { hostname: 'example.com:443' }],
      ['a hostname with a path', { hostname: 'example.com/login' }],
      ['a hostname that is not a string', { hostname: 7 }],
      ['port 0', { port: 0 }],
      ['port 65536', { port: 65536 }],
      ['a port as a string', { port: '443' }],
      ['a fractional port', { port: 443.5 }],
      ['warn_days 0', { warn_days: 0 }],
      ['warn_days 366', { warn_days: 366 }],
      ['a bad location', { location: 'no spaces allowed' }],
      ['a ca_certificate that is not PEM', { ca_certificate: 'hello' }],
      ['a PEM block that is not a certificate', { ca_certificate: '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----' }],
      ['an empty name', { name: '' }],
      ['an unknown field', { check_type: 'HTTP' }],
    ];
    for (const [label, change] of invalid) {
      it(`answers 400 to a create with ${label}`, async () => {
        const u = await cp.api.newUser('ssl-invalid');
        const r = await cp.api.post('/ssl-certificates', { hostname: 'example.com', location: NOWHERE, ...change }, u.token);
        expect(r.status, r.text).to.equal(400);
        expect(r.body.error).to.be.a('string');
        expect((await cp.api.get('/ssl-certificates', u.token)).body).to.deep.equal([]);
      });
    }

    it('answers 400 to a bad update, a bad id and a body that is not an object, and 404 to an unknown id', async () => {
      const u = await cp.api.newUser('ssl-invalid-update');
      const created = (await watch(u, { hostname: 'example.com', location: NOWHERE })).body;
      for (const change of [{ port: 0 }, { warn_days: 400 }, { hostname: 'ftp://x' }, { ca_certificate: 'x' }, { unknown: 1 }]) {
        expect((await cp.api.put(`/ssl-certificates/${created.id}`, change, u.token)).status, JSON.stringify(change)).to.equal(400);
      }
      expect((await cp.api.post('/ssl-certificates', [1], u.token)).status).to.equal(400);
      const everyRoute = (id: string) => [
        cp.api.get(`/ssl-certificates/${id}`, u.token),
        cp.api.put(`/ssl-certificates/${id}`, { warn_days: 20 }, u.token),
        cp.api.del(`/ssl-certificates/${id}`, u.token),
        cp.api.post(`/ssl-certificates/${id}/check`, {}, u.token),
      ];
      expect((await Promise.all(everyRoute('nope'))).map((r) => r.status)).to.deep.equal([400, 400, 400, 400]);
      expect((await Promise.all(everyRoute(randomUUID()))).map((r) => r.status)).to.deep.equal([404, 404, 404, 404]);
    });

    it('accepts a bracketed IPv6 address and stores it bare', async () => {
      const u = await cp.api.newUser('ssl-ipv6');
      const created = await watch(u, { hostname: '[::1]', port: 8443, location: NOWHERE });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ hostname: '::1', name: '[::1]:8443' });
      expect((await cp.api.get(`/services/${created.body.service_id}`, u.token)).body.endpoint).to.equal('[::1]:8443');
    });

    it('lets viewers read and refuses them every write (403); members write', async () => {
      const owner = await cp.api.newUser('ssl-roles');
      const created = (await watch(owner, { hostname: 'example.com', location: NOWHERE })).body;
      const viewer = await cp.api.keyWithRole(owner, 'viewer');
      expect((await cp.api.get('/ssl-certificates', viewer)).status).to.equal(200);
      expect((await cp.api.get(`/ssl-certificates/${created.id}`, viewer)).status).to.equal(200);
      expect((await cp.api.post('/ssl-certificates', { hostname: 'example.org', location: NOWHERE }, viewer)).status).to.equal(403);
      expect((await cp.api.put(`/ssl-certificates/${created.id}`, { warn_days: 20 }, viewer)).status).to.equal(403);
      expect((await cp.api.post(`/ssl-certificates/${created.id}/check`, {}, viewer)).status).to.equal(403);
      expect((await cp.api.del(`/ssl-certificates/${created.id}`, viewer)).status).to.equal(403);
      const member = await cp.api.keyWithRole(owner, 'member');
      expect((await cp.api.post('/ssl-certificates', { hostname: 'example.org', location: NOWHERE }, member)).status).to.equal(201);
      expect((await cp.api.put(`/ssl-certificates/${created.id}`, { warn_days: 20 }, member)).status).to.equal(200);
    });

    it("answers 404 on every route for another organization's watch", async () => {
      const owner = await cp.api.newUser('ssl-owner');
      const other = await cp.api.newUser('ssl-other');
      const created = (await watch(owner, { hostname: 'example.com', location: NOWHERE })).body;
      expect((await cp.api.get(`/ssl-certificates/${created.id}`, other.token)).status).to.equal(404);
      expect((await cp.api.put(`/ssl-certificates/${created.id}`, { warn_days: 20 }, other.token)).status).to.equal(404);
      expect((await cp.api.post(`/ssl-certificates/${created.id}/check`, {}, other.token)).status).to.equal(404);
      expect((await cp.api.del(`/ssl-certificates/${created.id}`, other.token)).status).to.equal(404);
      expect((await cp.api.get('/ssl-certificates', other.token)).body).to.deep.equal([]);
      expect((await cp.api.get(`/ssl-certificates/${created.id}`, owner.token)).body.warn_days).to.equal(14);
    });

    it('counts toward the plan: the free plan refuses a 6th service with 403', async () => {
      const u = await cp.api.newUser('ssl-plan');
      for (let i = 0; i < 5; i++) expect((await watch(u, { hostname: `host${i}.example`, location: NOWHERE })).status).to.equal(201);
      const sixth = await watch(u, { hostname: 'host5.example', location: NOWHERE });
      expect(sixth.status).to.equal(403);
      expect(sixth.body.error).to.match(/free plan allows at most 5 services/);
    });

    it('refuses requests without a credential (401)', async () => {
      expect((await cp.api.get('/ssl-certificates')).status).to.equal(401);
    });
  });
});
