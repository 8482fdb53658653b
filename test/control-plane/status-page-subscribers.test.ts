// Status page subscribers against real receivers on 127.0.0.1: an SMTP sink for the mails
// (whose confirm and unsubscribe links are followed) and an HTTP receiver for webhooks. The
// control plane believes X-Forwarded-For from 127.0.0.1, so each test subscribes from client
// addresses of its own and the per-address limit of one test never meets another's.
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { expect } from 'chai';
import { subscribersCsv } from '../../control-plane/src/features/subscribers/subscribers-csv.js';
import { refusalOf, webhookAddressGuard } from '../../control-plane/src/features/subscribers/webhook-addresses.js';
import { postWebhook } from '../../control-plane/src/features/subscribers/webhook-post.js';
import { SendError } from '../../control-plane/src/features/notifications/senders/sender.js';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';
import { startSmtpSink, type Mail, type SmtpSink } from '../fixtures/smtp-sink.js';

/** A client address of the documentation range, new for each caller. */
const newAddress = () => `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
const email = (label: string) => `${label}-${randomBytes(5).toString('hex')}@example.com`;

/** The body of a mail as text: quoted-printable undone. */
const bodyOf = (mail: Mail) =>
  mail.raw
    .slice(mail.raw.search(/\r?\n\r?\n/))
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
/** The header of a mail, unfolded; undefined when absent. */
const headerOf = (mail: Mail, name: string) => {
  const head = mail.raw.slice(0, mail.raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, ' ');
  return new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim();
};
const subjectOf = (mail: Mail) => headerOf(mail, 'Subject') ?? '';
/** A link of the mail as a path under /api/v1 (the links name PUBLIC_URL, whose port is not the test's). */
const linkIn = (mail: Mail, kind: 'confirm' | 'unsubscribe') => {
  const match = new RegExp(`https?://[^\\s/]+/api/v1(/subscriptions/${kind}\\?token=[A-Za-z0-9._-]+)`).exec(bodyOf(mail));
  if (!match) throw new Error(`no ${kind} link in: ${bodyOf(mail)}`);
  return match[1]!;
};

describe('status page subscribers', () => {
  let cp: TestControlPlane;
  let smtp: SmtpSink;
  let hooks: HttpReceiver;

  before(async () => {
    smtp = await startSmtpSink();
    hooks = await startHttpReceiver();
    cp = await startTestControlPlane({
      env: { ...smtp.env, SUBSCRIBER_WEBHOOKS_ALLOW_PRIVATE: 'true', TRUSTED_PROXIES: '127.0.0.1' },
      start: { retry: { maxAttempts: 4, baseDelayMs: 50 }, jobIntervalMs: 200 },
    });
  });
  after(async () => {
    await cp?.stop();
    await hooks?.close();
    await smtp?.close();
  });

  interface Page {
    owner: TestUser;
    id: string;
    slug: string;
    title: string;
    services: { id: string; name: string }[];
  }

  async function newPage(label: string): Promise<Page> {
    const owner = await cp.api.newUser(label);
    const services = [];
    for (const name of ['API', 'Website']) {
      const s = await cp.api.post('/services', { name: `${label} ${name}`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, owner.token);
      expect(s.status, s.text).to.equal(201);
      services.push({ id: s.body.id as string, name: s.body.name as string });
    }
    const slug = `${label}-${randomBytes(4).toString('hex')}`;
    const title = `${label} status`;
    const page = await cp.api.post('/status-pages', { slug, title, service_ids: services.map((s) => s.id) }, owner.token);
    expect(page.status, page.text).to.equal(201);
    return { owner, id: page.body.id, slug, title, services };
  }

  const subscribe = (slug: string, body: unknown, from = newAddress()) =>
    cp.api.request('POST', `/status-pages/${slug}/subscribe`, { json: body, headers: { 'x-forwarded-for': from } });
  const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.includes(address));
  const mailTo = (address: string, subject: RegExp, count = 1) =>
    poll(() => (mailsTo(address).filter((m) => subject.test(subjectOf(m))).length >= count ? mailsTo(address).filter((m) => subject.test(subjectOf(m))) : undefined), {
      what: `${count} mail(s) "${subject}" to ${address}`,
    });

  /** An e-mail subscriber who followed the confirmation link. */
  async function confirmedSubscriber(page: Page, label: string, componentIds: string[] = []): Promise<string> {
    const address = email(label);
    expect((await subscribe(page.slug, { email: address, component_ids: componentIds })).status).to.equal(202);
    const [mail] = await mailTo(address, /Confirm/);
    expect((await cp.api.get(linkIn(mail!, 'confirm'))).status).to.equal(200);
    return address;
  }
  const subscribersOf = async (page: Page) => {
    const list = await cp.api.get(`/status-pages/${page.id}/subscribers`, page.owner.token);
    expect(list.status, list.text).to.equal(200);
    return list.body as { id: string; email: string | null; webhook_url: string | null; component_ids: string[]; confirmed: boolean; confirmed_at: string | null }[];
  };
  const openIncident = async (page: Page, serviceIds: string[], title = 'Elevated errors') => {
    const created = await cp.api.post(
      `/status-pages/${page.id}/incidents`,
      { title, status: 'investigating', impact: 'major', affected: serviceIds.map((service_id) => ({ service_id })), message: 'We are looking into errors on sign-in.' },
      page.owner.token,
    );
    expect(created.status, created.text).to.equal(201);
    return created.body as { id: string };
  };
  const deliveriesOf = (subscriberEmailOrUrl: string) =>
    sql<{ event: string; status: string; attempts: number }>(
      `select d.event, d.status, d.attempts from subscriber_deliveries d join status_page_subscribers s on s.id = d.subscriber_id
        where lower(s.email) = lower($1) or s.webhook_url = $1 order by d.created_at`,
      [subscriberEmailOrUrl],
    );

  describe('subscribing by e-mail', () => {
    it('sends a confirmation mail whose link confirms the subscription', async () => {
      const page = await newPage('confirm');
      const address = email('visitor');
      const answer = await subscribe(page.slug, { email: address });
      expect(answer.status, answer.text).to.equal(202);
      expect(answer.body.message).to.be.a('string').and.not.equal('');
      expect((await subscribersOf(page)).map((s) => [s.email, s.confirmed])).to.deep.equal([[address, false]]);

      const [mail] = await mailTo(address, /Confirm your subscription/);
      expect(subjectOf(mail!)).to.equal(`[${page.title}] Confirm your subscription`);
      expect(bodyOf(mail!)).to.include(`/status/${page.slug}`);
      expect(headerOf(mail!, 'List-Unsubscribe')).to.match(/^<https?:\/\/.+\/api\/v1\/subscriptions\/unsubscribe\?token=.+>$/);
      expect(headerOf(mail!, 'List-Unsubscribe-Post')).to.equal('List-Unsubscribe=One-Click');

      const confirmed = await cp.api.get(linkIn(mail!, 'confirm'));
      expect(confirmed.status).to.equal(200);
      expect(confirmed.headers.get('content-type')).to.match(/^text\/html/);
      expect(confirmed.headers.get('cache-control')).to.equal('no-store');
      expect(confirmed.text).to.include('Subscription confirmed').and.include(page.title);
      const [subscriber] = await subscribersOf(page);
      expect(subscriber).to.include({ email: address, confirmed: true });
      expect(subscriber!.confirmed_at).to.be.a('string');
      // Following the link again changes nothing.
      expect((await cp.api.get(linkIn(mail!, 'confirm'))).status).to.equal(200);
      expect((await subscribersOf(page))[0]!.confirmed_at).to.equal(subscriber!.confirmed_at);
    });

    it('answers alike whether or not the address was subscribed: mails an unconfirmed one again, a confirmed one nothing', async () => {
      const page = await newPage('again');
      const address = email('twice');
      const first = await subscribe(page.slug, { email: address });
      const second = await subscribe(page.slug, { email: address.toUpperCase() });
      expect(second.status).to.equal(202);
      expect(second.text).to.equal(first.text);
      const mails = await mailTo(address, /Confirm/, 2);
      expect((await cp.api.get(linkIn(mails[1]!, 'confirm'))).status).to.equal(200);
      const third = await subscribe(page.slug, { email: address });
      expect(third.status).to.equal(202);
      expect(third.text).to.equal(first.text);
      expect((await subscribersOf(page)).filter((s) => s.email?.toLowerCase() === address)).to.have.length(1);
      // Two confirmation mails, and no third one was even enqueued.
      expect((await deliveriesOf(address)).map((d) => d.event)).to.deep.equal(['subscription_confirmation', 'subscription_confirmation']);
    });

    it('limits subscriptions per client address and per e-mail address with 429 and Retry-After', async () => {
      const page = await newPage('limits');
      const from = newAddress();
      for (let i = 0; i < 10; i++) expect((await subscribe(page.slug, { email: email(`many${i}`) }, from)).status).to.equal(202);
      const refused = await subscribe(page.slug, { email: email('eleventh') }, from);
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(refused.body.error).to.match(/too many subscription requests from your address/);

      const target = email('bombed');
      for (let i = 0; i < 3; i++) expect((await subscribe(page.slug, { email: target })).status).to.equal(202);
      const fourth = await subscribe(page.slug, { email: target.toUpperCase() });
      expect(fourth.status).to.equal(429);
      expect(fourth.body.error).to.match(/this e-mail address/);
    });

    it('refuses components that are not services of the page, and pages the visitor may not see', async () => {
      const page = await newPage('refuse');
      const wrong = await subscribe(page.slug, { email: email('x'), component_ids: [randomUUID()] });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.error).to.match(/component_ids/);
      expect((await subscribe(page.slug, {})).status).to.equal(400);
      expect((await subscribe(page.slug, { email: email('y'), webhook_url: `${hooks.url}/both` })).status).to.equal(400);
      expect((await subscribe(page.slug, { email: 'not-an-address' })).status).to.equal(400);
      expect((await subscribe(`nope-${randomBytes(4).toString('hex')}`, { email: email('z') })).status).to.equal(404);
      const hidden = await cp.api.post('/status-pages', { slug: `hidden-${randomBytes(4).toString('hex')}`, title: 'Hidden', access: 'members' }, page.owner.token);
      expect(hidden.status, hidden.text).to.equal(201);
      const refused = await subscribe(hidden.body.slug, { email: email('z') });
      expect(refused.status).to.equal(404);
      expect(refused.body.error).to.equal('status page not found');
    });
  });

  describe('mail links', () => {
    it('unsubscribes with the link of a mail (GET) and in one click (RFC 8058 POST), the same page for one already gone', async () => {
      const page = await newPage('unsub');
      const byLink = await confirmedSubscriber(page, 'link');
      const byClick = await confirmedSubscriber(page, 'click');
      const [first] = await mailTo(byLink, /Confirm/);
      // A link checker's HEAD changes nothing.
      expect((await cp.api.request('HEAD', linkIn(first!, 'unsubscribe'))).status).to.equal(200);
      expect(await subscribersOf(page)).to.have.length(2);
      const gone = await cp.api.get(linkIn(first!, 'unsubscribe'));
      expect(gone.status).to.equal(200);
      expect(gone.text).to.include('You are unsubscribed');
      expect((await subscribersOf(page)).map((s) => s.email)).to.deep.equal([byClick]);
      const again = await cp.api.get(linkIn(first!, 'unsubscribe'));
      expect(again.status).to.equal(200);
      expect(again.text).to.include('You are unsubscribed');

      const [second] = await mailTo(byClick, /Confirm/);
      const header = headerOf(second!, 'List-Unsubscribe')!.slice(1, -1);
      const oneClick = await cp.api.request('POST', new URL(header).pathname.replace('/api/v1', '') + new URL(header).search, {
        body: 'List-Unsubscribe=One-Click',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(oneClick.status, oneClick.text).to.equal(200);
      expect(oneClick.text).to.include('You are unsubscribed');
      expect(await subscribersOf(page)).to.deep.equal([]);
    });

    it('answers a forged, cut or misused token with a 400 page', async () => {
      const page = await newPage('forged');
      const address = email('forged');
      await subscribe(page.slug, { email: address });
      const [mail] = await mailTo(address, /Confirm/);
      const confirm = linkIn(mail!, 'confirm');
      const unsubscribe = linkIn(mail!, 'unsubscribe');
      const token = (link: string) => link.slice(link.indexOf('token=') + 'token='.length);
      const cases = [
        `/subscriptions/confirm?token=${token(confirm).slice(0, -3)}abc`,
        `/subscriptions/confirm?token=${token(confirm).split('.').slice(0, 2).join('.')}`,
        `/subscriptions/confirm?token=${token(unsubscribe)}`,
        `/subscriptions/unsubscribe?token=${token(confirm)}`,
        `/subscriptions/unsubscribe?token=${randomUUID()}..${'A'.repeat(43)}`,
        '/subscriptions/confirm',
      ];
      for (const path of cases) {
        const answer = await cp.api.get(path);
        expect(answer.status, path).to.equal(400);
        expect(answer.headers.get('content-type'), path).to.match(/^text\/html/);
        expect(answer.text, path).to.include('This link does not work');
      }
      expect((await subscribersOf(page)).map((s) => s.confirmed)).to.deep.equal([false]);
    });
  });

  describe('notices', () => {
    it('reach confirmed subscribers only, and only those whose components are concerned', async () => {
      const page = await newPage('notices');
      const [api, website] = page.services;
      const everything = await confirmedSubscriber(page, 'everything');
      const apiOnly = await confirmedSubscriber(page, 'api-only', [api!.id]);
      const websiteOnly = await confirmedSubscriber(page, 'website-only', [website!.id]);
      const unconfirmed = email('unconfirmed');
      expect((await subscribe(page.slug, { email: unconfirmed })).status).to.equal(202);
      const hookAll = `${hooks.url}/all-${randomBytes(3).toString('hex')}`;
      const hookWebsite = `${hooks.url}/website-${randomBytes(3).toString('hex')}`;
      expect((await subscribe(page.slug, { webhook_url: hookAll })).status).to.equal(202);
      expect((await subscribe(page.slug, { webhook_url: hookWebsite, component_ids: [website!.id] })).status).to.equal(202);

      const incident = await openIncident(page, [api!.id], 'Sign-in errors');
      const subject = `[${page.title}] Investigating: Sign-in errors`;
      for (const address of [everything, apiOnly]) {
        const [mail] = await mailTo(address, /Investigating/);
        expect(subjectOf(mail!)).to.equal(subject);
        const body = bodyOf(mail!);
        expect(body).to.include('We are looking into errors on sign-in.').and.include(`Affected components: ${api!.name}`).and.include(`/status/${page.slug}`);
        expect(linkIn(mail!, 'unsubscribe')).to.be.a('string');
        expect(headerOf(mail!, 'List-Unsubscribe')).to.match(/^<https?:\/\/.+\/api\/v1\/subscriptions\/unsubscribe\?token=.+>$/);
        expect(headerOf(mail!, 'List-Unsubscribe-Post')).to.equal('List-Unsubscribe=One-Click');
      }
      const delivered = await hooks.waitFor((r) => r.url === new URL(hookAll).pathname, 'the webhook of the whole page');
      expect(delivered.headers['content-type']).to.equal('application/json');
      expect(delivered.json).to.deep.include({ event: 'incident_opened' });
      expect(delivered.json.status_page).to.deep.equal({ id: page.id, slug: page.slug, title: page.title, url: delivered.json.status_page.url });
      expect(delivered.json.status_page.url).to.match(new RegExp(`/status/${page.slug}$`));
      expect(delivered.json.incident).to.deep.include({ id: incident.id, title: 'Sign-in errors', status: 'investigating', message: 'We are looking into errors on sign-in.', ends_at: null });
      expect(delivered.json.incident.components).to.deep.equal([{ id: api!.id, name: api!.name }]);
      expect(delivered.json.unsubscribe_url).to.match(/\/api\/v1\/subscriptions\/unsubscribe\?token=/);
      expect(Date.parse(delivered.json.sent_at)).to.be.greaterThan(0);

      // Who was not concerned got nothing: the outbox rows were made with the incident.
      expect((await deliveriesOf(websiteOnly)).map((d) => d.event)).to.deep.equal(['subscription_confirmation']);
      expect((await deliveriesOf(unconfirmed)).map((d) => d.event)).to.deep.equal(['subscription_confirmation']);
      expect(await deliveriesOf(hookWebsite)).to.deep.equal([]);

      const resolved = await cp.api.post(`/status-pages/${page.id}/incidents/${incident.id}/updates`, { status: 'resolved', message: 'Fixed.' }, page.owner.token);
      expect(resolved.status, resolved.text).to.equal(201);
      const [done] = await mailTo(apiOnly, /Resolved/);
      expect(subjectOf(done!)).to.equal(`[${page.title}] Resolved: Sign-in errors`);
      await hooks.waitFor((r) => r.url === new URL(hookAll).pathname && r.json?.event === 'incident_resolved', 'the resolution at the webhook');
    });

    it('retries a failing webhook until it answers', async () => {
      const page = await newPage('retry');
      const hook = `${hooks.url}/retry-${randomBytes(3).toString('hex')}`;
      expect((await subscribe(page.slug, { webhook_url: hook })).status).to.equal(202);
      hooks.failNext(2);
      await openIncident(page, []);
      await poll(() => hooks.requests.filter((r) => r.url === new URL(hook).pathname && r.status === 200).length === 1, { what: 'the third attempt to succeed' });
      expect(hooks.requests.filter((r) => r.url === new URL(hook).pathname).map((r) => r.status)).to.deep.equal([500, 500, 200]);
      const [row] = await poll(async () => {
        const rows = await deliveriesOf(hook);
        return rows[0]?.status === 'delivered' ? rows : undefined;
      }, { what: 'the delivery to be recorded' });
      expect(row).to.deep.equal({ event: 'incident_opened', status: 'delivered', attempts: 3 });
    });
  });

  describe('admin', () => {
    it('lists, exports as CSV and removes subscribers; members and viewers may not', async () => {
      const page = await newPage('admin');
      const address = await confirmedSubscriber(page, 'listed', [page.services[0]!.id]);
      const hook = `${hooks.url}/listed`;
      expect((await subscribe(page.slug, { webhook_url: hook })).status).to.equal(202);
      const list = await subscribersOf(page);
      expect(list.map((s) => [s.email, s.webhook_url, s.component_ids, s.confirmed])).to.deep.equal([
        [address, null, [page.services[0]!.id], true],
        [null, hook, [], true],
      ]);

      const csv = await cp.api.get(`/status-pages/${page.id}/subscribers.csv`, page.owner.token);
      expect(csv.status).to.equal(200);
      expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
      expect(csv.headers.get('content-disposition')).to.equal(`attachment; filename="subscribers-${page.slug}.csv"`);
      const lines = csv.text.trim().split('\r\n');
      expect(lines[0]).to.equal('id,email,webhook_url,component_ids,confirmed,confirmed_at,created_at');
      expect(lines.slice(1).map((l) => l.split(',').slice(0, 5))).to.deep.equal([
        [list[0]!.id, address, '', page.services[0]!.id, 'true'],
        [list[1]!.id, '', hook, '', 'true'],
      ]);

      for (const role of ['member', 'viewer'] as const) {
        const key = await cp.api.keyWithRole(page.owner, role);
        expect((await cp.api.get(`/status-pages/${page.id}/subscribers`, key)).status, role).to.equal(403);
        expect((await cp.api.get(`/status-pages/${page.id}/subscribers.csv`, key)).status, role).to.equal(403);
        expect((await cp.api.del(`/status-pages/${page.id}/subscribers/${list[0]!.id}`, key)).status, role).to.equal(403);
      }
      const admin = await cp.api.keyWithRole(page.owner, 'admin');
      expect((await cp.api.get(`/status-pages/${page.id}/subscribers`, admin)).status).to.equal(200);
      const stranger = await cp.api.newUser('stranger');
      expect((await cp.api.get(`/status-pages/${page.id}/subscribers`, stranger.token)).status).to.equal(404);
      expect((await cp.api.del(`/status-pages/${page.id}/subscribers/${list[0]!.id}`, stranger.token)).status).to.equal(404);

      expect((await cp.api.del(`/status-pages/${page.id}/subscribers/${list[0]!.id}`, admin)).status).to.equal(204);
      expect((await cp.api.del(`/status-pages/${page.id}/subscribers/${list[0]!.id}`, admin)).status).to.equal(404);
      expect((await subscribersOf(page)).map((s) => s.webhook_url)).to.deep.equal([hook]);
      expect((await cp.api.get(`/status-pages/not-a-uuid/subscribers`, admin)).status).to.equal(400);
    });

    it('writes CSV cells a spreadsheet cannot run as formulas', () => {
      const at = new Date('2026-01-02T03:04:05Z');
      const csv = subscribersCsv([
        { id: 'a', statusPageId: 'p', email: '=HYPERLINK("x")@example.com', webhookUrl: null, componentIds: [], confirmedAt: null, createdAt: at },
        { id: 'b', statusPageId: 'p', email: null, webhookUrl: 'https://example.com/a,b', componentIds: ['s1', 's2'], confirmedAt: at, createdAt: at },
      ]);
      expect(csv.split('\r\n').slice(1, 3)).to.deep.equal([
        `a,"'=HYPERLINK(""x"")@example.com",,,false,,2026-01-02T03:04:05.000Z`,
        'b,,"https://example.com/a,b",s1 s2,true,2026-01-02T03:04:05.000Z,2026-01-02T03:04:05.000Z',
      ]);
    });
  });
});

describe('status page subscriber webhooks without SUBSCRIBER_WEBHOOKS_ALLOW_PRIVATE', () => {
  let cp: TestControlPlane;
  let hooks: HttpReceiver;

  before(async () => {
    hooks = await startHttpReceiver();
    cp = await startTestControlPlane({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
  });
  after(async () => {
    await cp?.stop();
    await hooks?.close();
  });

  it('refuses webhooks that reach loopback, private, link-local, CGNAT or multicast addresses, and URLs with credentials', async () => {
    const owner = await cp.api.newUser('private');
    const slug = `private-${randomBytes(4).toString('hex')}`;
    expect((await cp.api.post('/status-pages', { slug, title: 'Private hooks' }, owner.token)).status).to.equal(201);
    const port = new URL(hooks.url).port;
    const cases: [string, RegExp][] = [
      [hooks.url, /127\.0\.0\.1 is a loopback address/],
      [`http://localhost:${port}/`, /localhost resolves to .* loopback address/],
      ['http://[::1]/', /loopback/],
      ['http://[::ffff:10.0.0.1]/', /private/],
      ['http://10.1.2.3/', /private \(RFC 1918\)/],
      ['http://192.168.1.1/', /private/],
      ['http://[fd00::1]/', /unique local/],
      ['http://169.254.169.254/latest/meta-data', /link-local/],
      ['http://100.64.0.1/', /carrier-grade NAT/],
      ['http://0.0.0.0/', /unspecified/],
      ['http://224.0.0.1/', /multicast/],
      ['ftp://example.com/', /http or https/],
      ['https://user:secret@example.com/', /user name or password/],
    ];
    for (const [url, message] of cases) {
      const answer = await cp.api.request('POST', `/status-pages/${slug}/subscribe`, { json: { webhook_url: url }, headers: { 'x-forwarded-for': newAddress() } });
      expect(answer.status, url).to.equal(400);
      expect(answer.body.error, url).to.match(message);
    }
    const [row] = await sql<{ n: number }>('select count(*)::int as n from status_page_subscribers s join status_pages p on p.id = s.status_page_id where p.slug = $1', [slug]);
    expect(row!.n).to.equal(0);
    expect(hooks.requests).to.deep.equal([]);
  });

  it('checks the address again when delivering, and does not connect to a refused one', async () => {
    let error: unknown;
    try {
      await postWebhook(`${hooks.url.replace('127.0.0.1', 'localhost')}/rebound`, '{}', webhookAddressGuard(false));
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(SendError);
    expect((error as SendError).permanent).to.equal(true);
    expect((error as SendError).message).to.match(/loopback/);
    expect(hooks.requests).to.deep.equal([]);
    // With private addresses allowed, the same post goes through.
    expect(await postWebhook(`${hooks.url}/allowed`, '{}', webhookAddressGuard(true))).to.deep.equal({ statusCode: 200 });
  });

  it("refuses every address of this host's interfaces, and lets public unicast addresses through", () => {
    const own = Object.values(os.networkInterfaces()).flatMap((list) => list ?? []).map((i) => i.address);
    expect(own).to.not.be.empty;
    for (const address of own) expect(refusalOf(address), address).to.be.a('string');
    expect(refusalOf('93.184.215.14')).to.equal(null);
    expect(refusalOf('2606:4700:4700::1111')).to.equal(null);
    expect(refusalOf('::ffff:127.0.0.1')).to.equal('a loopback address');
    expect(refusalOf('192.0.2.1')).to.match(/special-purpose/);
  });
});
