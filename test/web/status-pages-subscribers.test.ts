// Subscribers in a real browser: a visitor subscribes to some services of a status page by
// e-mail, reads the API's answer, follows the confirmation link of the mail the SMTP sink
// caught, and the page's admin sees them confirmed, downloads the CSV and removes them.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startSmtpSink, type SmtpSink } from '../fixtures/smtp-sink.js';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';
import { poll } from '../support/poll.js';

describe('dashboard: status page subscribers', function () {
  this.timeout(90_000);
  let h: DashboardHarness;
  let sink: SmtpSink;
  let owner: TestUser;

  before(async function () {
    sink = await startSmtpSink();
    h = await startDashboard(this, { env: { ...sink.env, SUBSCRIBER_WEBHOOKS_ALLOW_PRIVATE: 'true' } });
    owner = await h.controlPlane.api.newUser('subscribers-owner');
  });
  after(async () => {
    await h?.stop();
    await sink?.close();
  });

  it('subscribes a visitor to chosen services, confirms by the mailed link, and the admin lists, exports and removes them', async () => {
    const services: { id: string }[] = [];
    for (const name of ['Checkout', 'Search']) {
      const created = await h.controlPlane.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, owner.token);
      expect(created.status, created.text).to.equal(201);
      services.push(created.body);
    }
    const slug = `news-${Date.now()}`;
    const created = await h.controlPlane.api.post('/status-pages', { slug, title: 'News status', service_ids: services.map((s) => s.id) }, owner.token);
    expect(created.status, created.text).to.equal(201);
    const pageId = created.body.id as string;

    const { page: visitor, errors } = await h.newPage();
    await visitor.goto(`/status/${slug}`);
    const form = visitor.getByRole('region', { name: 'Get updates' });
    const email = `reader-${Date.now()}@example.com`;
    await form.getByLabel('Email address').fill(email);
    await form.getByRole('button', { name: 'Only some services' }).click();
    await form.getByRole('checkbox', { name: 'Search' }).check();
    const answered = visitor.waitForResponse((r) => r.url().endsWith(`/status-pages/${slug}/subscribe`));
    await form.getByRole('button', { name: 'Subscribe' }).click();
    const response = await answered;
    expect(response.status()).to.equal(202);
    // The visitor reads what the API said.
    await form.getByRole('status').filter({ hasText: ((await response.json()) as { message: string }).message }).waitFor();

    const mail = await poll(() => sink.mails.find((m) => m.to.includes(email)), { timeoutMs: 15_000, what: 'the confirmation mail' });
    // Quoted-printable: "=3D" is "=".
    const text = mail.text.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    const link = /https?:\/\/[^\s"<>]+\/api\/v1\/subscriptions\/confirm\?token=[\w.-]+/.exec(text)?.[0];
    expect(link, 'the confirmation link').to.be.a('string');
    // The mail names the configured public address; the test's control plane listens elsewhere.
    const url = new URL(link!);
    await visitor.goto(`${url.pathname}${url.search}`);
    await visitor.getByRole('heading', { name: 'Subscription confirmed' }).waitFor();
    expect(errors).to.deep.equal([]);

    const admin = await h.signedInPage(owner, `/status-pages/${pageId}`);
    const list = admin.getByRole('region', { name: 'Subscribers' });
    const row = list.getByRole('row', { name: new RegExp(email.replace(/[.]/g, '\\.')) });
    await row.waitFor();
    await row.getByRole('cell', { name: 'Search', exact: true }).waitFor();
    await row.getByRole('cell', { name: 'E-mail', exact: true }).waitFor();
    expect(await row.getByText('Awaiting confirmation').count()).to.equal(0);

    const download = admin.waitForEvent('download');
    await list.getByRole('button', { name: 'Download CSV' }).click();
    const file = await (await download).path();
    expect(await readFile(file!, 'utf8')).to.include(email);

    await row.getByRole('button', { name: `Remove subscriber ${email}` }).click();
    await admin.getByRole('dialog', { name: `Remove subscriber ${email}?` }).getByRole('button', { name: 'Remove' }).click();
    await list.getByText('Nobody has subscribed yet.').waitFor();
    expect((await h.controlPlane.api.get(`/status-pages/${pageId}/subscribers`, owner.token)).body).to.deep.equal([]);
  });
});
