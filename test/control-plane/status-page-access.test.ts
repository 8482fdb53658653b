// Who may see a status page (issue 42): each access mode from outside and inside — a public
// page; a password page (wrong password refused, attempts limited, the signed cookie opening
// it, a new password locking old cookies out); a members page (signed-in members only); an
// address allowlist honouring TRUSTED_PROXIES (a proxy header from an untrusted peer is
// ignored) — then a custom domain by Host header, component groups, and the feeds.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { expect } from 'chai';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import Parser from 'rss-parser';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { buildDashboard } from '../support/browser.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';

/** A request with any Host header (fetch will not send one of its own choosing). */
function rawGet(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer')));
    req.on('error', reject);
  });
}

describe('status page access, domains, groups and feeds', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;
  /** The same database behind a control plane that trusts no proxy. */
  let untrusting: TestControlPlane;
  let agent: ScriptedAgent;
  let u: TestUser;

  before(async () => {
    buildDashboard();
    cp = await startTestControlPlane({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    untrusting = await startTestControlPlane();
    agent = await connectReadyAgent(cp.running);
    u = await cp.api.newUser('sp-access');
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
    await untrusting?.stop();
  });

  const slug = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
  const newService = async (name: string) =>
    (await cp.api.post('/services', { name, endpoint: 'http://10.1.2.3:8080/internal', check_type: 'HTTP', check_interval_seconds: 3600 }, u.token)).body.id as string;
  const port = (c: TestControlPlane) => Number(new URL(c.baseUrl).port);

  it('opens a password page only with its password, limits wrong guesses, and locks old cookies out when the password changes', async () => {
    const s = slug('pw');
    const refused = await cp.api.post('/status-pages', { slug: s, title: 'Partners', access: 'password' }, u.token);
    expect(refused.status, 'a password page needs a password').to.equal(400);
    const short = await cp.api.post('/status-pages', { slug: s, title: 'Partners', access: 'password', password: 'short' }, u.token);
    expect(short.status).to.equal(400);
    const page = (await cp.api.post('/status-pages', { slug: s, title: 'Partners', access: 'password', password: 'correct horse' }, u.token)).body;
    expect(page).to.include({ access: 'password', public: false, password_set: true });
    expect(JSON.stringify(page)).to.not.include('correct horse');

    const locked = await cp.api.get(`/status-pages/${s}/public`);
    expect(locked.status).to.equal(401);
    expect(locked.body.code).to.equal('PASSWORD_REQUIRED');
    expect(locked.text).to.not.include('Partners');
    const wrong = await cp.api.post(`/status-pages/${s}/unlock`, { password: 'wrong horse' });
    expect(wrong.status).to.equal(400);
    expect(wrong.headers.get('set-cookie')).to.equal(null);

    const right = await cp.api.post(`/status-pages/${s}/unlock`, { password: 'correct horse' });
    expect(right.status).to.equal(204);
    const cookie = right.headers.get('set-cookie')!;
    expect(cookie).to.match(/httponly/i).and.to.match(/samesite=lax/i);
    const jar = cookie.split(';')[0]!;
    const opened = await cp.api.request('GET', `/status-pages/${s}/public`, { headers: { cookie: jar } });
    expect(opened.status).to.equal(200);
    expect(opened.body.title).to.equal('Partners');
    expect(opened.headers.get('cache-control'), 'never in a shared cache').to.match(/private/);
    expect(cookie, 'plain HTTP: not Secure').to.not.match(/;\s*secure/i);
    const viaTls = await cp.api.request('POST', `/status-pages/${s}/unlock`, { json: { password: 'correct horse' }, headers: { 'x-forwarded-proto': 'https' } });
    expect(viaTls.headers.get('set-cookie'), 'TLS ended at a trusted proxy: Secure').to.match(/;\s*secure/i);
    const claimed = await untrusting.api.request('POST', `/status-pages/${s}/unlock`, { json: { password: 'correct horse' }, headers: { 'x-forwarded-proto': 'https' } });
    expect(claimed.headers.get('set-cookie'), 'the header from an untrusted peer means nothing').to.not.match(/;\s*secure/i);
    const forged = jar.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await cp.api.request('GET', `/status-pages/${s}/public`, { headers: { cookie: forged } })).status).to.equal(401);
    expect((await cp.api.get(`/status-pages/${s}/public`, u.token)).status, 'members need no password').to.equal(200);

    await cp.api.put(`/status-pages/${page.id}`, { password: 'a new password' }, u.token);
    expect((await cp.api.request('GET', `/status-pages/${s}/public`, { headers: { cookie: jar } })).status, 'a new password ends old cookies').to.equal(401);

    // Wrong guesses from one address are limited (10 per 15 minutes); the right password is refused then too.
    let limited = 0;
    for (let i = 0; i < 12; i++) if ((await cp.api.post(`/status-pages/${s}/unlock`, { password: `guess ${i}` })).status === 429) limited++;
    expect(limited).to.be.at.least(2);
    const late = await cp.api.post(`/status-pages/${s}/unlock`, { password: 'a new password' });
    expect(late.status).to.equal(429);
    expect(late.headers.get('retry-after')).to.match(/^\d+$/);
  });

  it('shows a members page to signed-in members only, and keeps public: false meaning members', async () => {
    const s = slug('members');
    const page = (await cp.api.post('/status-pages', { slug: s, title: 'Internal', public: false }, u.token)).body;
    expect(page).to.include({ access: 'members', public: false });
    const stranger = await cp.api.newUser('sp-stranger');
    const unknown = await cp.api.get(`/status-pages/${slug('nobody')}/public`);
    for (const token of [undefined, stranger.token, 'not-a-token']) {
      const r = await cp.api.get(`/status-pages/${s}/public`, token);
      expect(r.status).to.equal(404);
      expect(r.body).to.deep.equal(unknown.body);
    }
    expect((await cp.api.get(`/status-pages/${s}/public`, await cp.api.keyWithRole(u, 'viewer'))).status).to.equal(200);
    const published = await cp.api.put(`/status-pages/${page.id}`, { public: true }, u.token);
    expect(published.body).to.include({ access: 'public', public: true });
    expect((await cp.api.get(`/status-pages/${s}/public`)).status).to.equal(200);
  });

  it('shows an allowlisted page to addresses in its ranges, honouring X-Forwarded-For from trusted proxies only', async () => {
    const s = slug('intranet');
    const bad = await cp.api.post('/status-pages', { slug: s, title: 'Intranet', access: 'ip_allowlist', ip_allowlist: ['10.0.0.0/33'] }, u.token);
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.include('10.0.0.0/33');
    expect((await cp.api.post('/status-pages', { slug: s, title: 'Intranet', access: 'ip_allowlist' }, u.token)).status, 'an empty allowlist').to.equal(400);
    const page = (await cp.api.post('/status-pages', { slug: s, title: 'Intranet', access: 'ip_allowlist', ip_allowlist: ['10.20.0.0/16', '2001:db8::/32'] }, u.token)).body;
    expect(page.ip_allowlist).to.deep.equal(['10.20.0.0/16', '2001:db8::/32']);

    const from = (address: string, via = cp) => via.api.request('GET', `/status-pages/${s}/public`, { headers: { 'x-forwarded-for': address } });
    expect((await cp.api.get(`/status-pages/${s}/public`)).status, '127.0.0.1 is not in the list').to.equal(404);
    expect((await from('10.20.3.4')).status).to.equal(200);
    expect((await from('2001:db8:1::5')).status).to.equal(200);
    expect((await from('10.21.0.1')).status).to.equal(404);
    expect((await from('2001:db9::1')).status).to.equal(404);
    expect((await from('10.20.3.4', untrusting)).status, 'a header from a peer that is not a trusted proxy is ignored').to.equal(404);

    await cp.api.put(`/status-pages/${page.id}`, { ip_allowlist: ['127.0.0.1'] }, u.token);
    expect((await untrusting.api.get(`/status-pages/${s}/public`)).status, 'the peer itself').to.equal(200);
  });

  it('serves the page at / of its custom domain, and the dashboard elsewhere', async () => {
    const s = slug('domain');
    const domain = `status-${randomUUID().slice(0, 8)}.example.com`;
    const page = (await cp.api.post('/status-pages', { slug: s, title: 'Acme & Co status', custom_domain: domain.toUpperCase() }, u.token)).body;
    expect(page.custom_domain).to.equal(domain);
    expect((await cp.api.post('/status-pages', { slug: slug('other'), title: 'x', custom_domain: domain }, u.token)).status, 'a domain shows one page').to.equal(409);
    expect((await cp.api.post('/status-pages', { slug: slug('other'), title: 'x', custom_domain: 'not a domain' }, u.token)).status).to.equal(400);

    const home = await rawGet(port(cp), '/', { host: domain });
    expect(home.status).to.equal(200);
    expect(home.text).to.include(`<meta name="outpost-status-page" content="${s}" />`);
    expect(home.text).to.include('<title>Acme &#38; Co status</title>');
    const elsewhere = await rawGet(port(cp), '/', { host: `127.0.0.1:${port(cp)}` });
    expect(elsewhere.text).to.not.include('outpost-status-page');
    const feed = await rawGet(port(cp), '/feed.atom', { host: domain });
    expect(feed.status).to.equal(200);
    expect(feed.text).to.include(`<link rel="self" href="http://${domain}/feed.atom"`);
  });

  it('groups services into components with their worst status, listing grouped services on the page', async () => {
    const [api, web, db] = [await newService('API'), await newService('Web'), await newService('DB')];
    const now = Date.now();
    await agent.sendResults([
      { serviceId: api, ok: true, responseTimeMs: 10, checkedAtMs: now - 2000 },
      { serviceId: web, ok: false, responseTimeMs: 10, checkedAtMs: now - 2000 },
      { serviceId: db, ok: true, responseTimeMs: 10, checkedAtMs: now - 2000 },
    ]);
    const refused = await cp.api.post('/status-pages', { slug: slug('g'), title: 'x', groups: [{ name: 'A', service_ids: [api] }, { name: 'B', service_ids: [api] }] }, u.token);
    expect(refused.status, 'a service in two groups').to.equal(400);
    const page = (await cp.api.post('/status-pages', { slug: slug('groups'), title: 'Grouped', service_ids: [db], groups: [{ name: 'Frontend', service_ids: [web, api] }] }, u.token)).body;
    expect(page.service_ids).to.deep.equal([db, web, api]);
    expect(page.groups).to.deep.equal([{ name: 'Frontend', service_ids: [web, api] }]);
    const view = (await cp.api.get(`/status-pages/${page.slug}/public`)).body;
    expect(view.groups).to.deep.equal([{ name: 'Frontend', status: 'RED', under_maintenance: false, service_ids: [web, api] }]);
    expect(view.services.map((x: any) => [x.name, x.group])).to.deep.equal([['DB', null], ['Web', 'Frontend'], ['API', 'Frontend']]);
  });

  it('publishes incidents and maintenance as RSS 2.0 and Atom feeds that parse and validate', async () => {
    const api = await newService('Feed API');
    const page = (await cp.api.post('/status-pages', { slug: slug('feed'), title: 'Feed status', service_ids: [api] }, u.token)).body;
    const incident = (await cp.api.post(`/status-pages/${page.id}/incidents`, { title: 'Queue delays', affected: [{ service_id: api }], message: 'Messages are delayed.' }, u.token)).body;
    await cp.api.post(`/status-pages/${page.id}/incidents/${incident.id}/updates`, { status: 'resolved', message: 'Delays are gone.' }, u.token);
    const startsAt = new Date(Date.now() + 3_600_000).toISOString();
    await cp.api.post('/maintenance-windows', { name: 'Database upgrade', starts_at: startsAt, ends_at: new Date(Date.now() + 7_200_000).toISOString(), status_page_ids: [page.id] }, u.token);

    const rss = await fetch(`${cp.baseUrl}/status/${page.slug}/feed.rss`);
    expect(rss.status).to.equal(200);
    expect(rss.headers.get('content-type')).to.match(/^application\/rss\+xml/);
    const rssText = await rss.text();
    expect(XMLValidator.validate(rssText)).to.equal(true);
    const channel = new XMLParser().parse(rssText).rss.channel;
    for (const field of ['title', 'link', 'description']) expect(channel[field], `RSS 2.0 requires channel ${field}`).to.be.a('string').and.not.empty;
    const parsed = await new Parser().parseString(rssText);
    expect(parsed.title).to.equal('Feed status');
    expect(parsed.items.map((i) => i.title)).to.have.members(['Resolved: Queue delays', 'Scheduled maintenance: Database upgrade']);
    const item = parsed.items.find((i) => i.title === 'Resolved: Queue delays')!;
    expect(item.guid).to.be.a('string').and.not.empty;
    expect(item.content ?? item.contentSnippet).to.include('Delays are gone.').and.to.include('Messages are delayed.');

    const atom = await fetch(`${cp.baseUrl}/status/${page.slug}/feed.atom`);
    expect(atom.headers.get('content-type')).to.match(/^application\/atom\+xml/);
    const atomText = await atom.text();
    expect(XMLValidator.validate(atomText)).to.equal(true);
    const feed = new XMLParser({ ignoreAttributes: false }).parse(atomText).feed;
    expect(feed['@_xmlns']).to.equal('http://www.w3.org/2005/Atom');
    for (const field of ['id', 'title', 'updated']) expect(feed[field], `Atom requires feed ${field}`).to.exist;
    const entries = [feed.entry].flat();
    expect(entries).to.have.length(2);
    for (const e of entries) for (const field of ['id', 'title', 'updated']) expect(e[field], `Atom requires entry ${field}`).to.exist;
    expect(feed.author?.name ?? entries.every((e: any) => e.author?.name), 'Atom requires an author').to.be.ok;
    expect((await new Parser().parseString(atomText)).items).to.have.length(2);

    const hidden = (await cp.api.post('/status-pages', { slug: slug('hidden'), title: 'x', public: false }, u.token)).body;
    expect((await fetch(`${cp.baseUrl}/status/${hidden.slug}/feed.rss`)).status).to.equal(404);
  });
});
