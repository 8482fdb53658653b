// Incidents in a real browser: a person writes an incident and two updates on a status page,
// corrects and deletes an update, and a visitor reads the timeline newest first on the public
// page; resolved (and retitled), it moves to the page's past incidents, paged with "Older". An alert opens an incident with its
// service and title filled in.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';

describe('dashboard: status page incidents', function () {
  this.timeout(120_000);
  let h: DashboardHarness;
  let owner: TestUser;

  before(async function () {
    h = await startDashboard(this, { embeddedAgent: true });
    owner = await h.controlPlane.api.newUser('incidents-owner');
  });
  after(async () => {
    await h?.stop();
  });

  const createService = async (name: string, endpoint: string) => {
    const created = await h.controlPlane.api.post('/services', { name, endpoint, check_type: 'HTTP', check_interval_seconds: 300 }, owner.token);
    expect(created.status, created.text).to.equal(201);
    return created.body as { id: string };
  };
  const createPage = async (slug: string, title: string, serviceIds: string[]) => {
    const created = await h.controlPlane.api.post('/status-pages', { slug, title, service_ids: serviceIds }, owner.token);
    expect(created.status, created.text).to.equal(201);
    return created.body as { id: string; slug: string };
  };
  /** A visitor in a browser of their own: nothing cached from an earlier visit. */
  const visit = async (slug: string): Promise<{ page: Page; errors: string[] }> => {
    const { page, errors } = await h.newPage();
    await page.goto(`/status/${slug}`);
    return { page, errors };
  };
  const timelineOf = (page: Page, title: string) => page.getByRole('list', { name: `Updates of ${title}` }).getByRole('listitem');

  it('writes an incident and two updates, corrects and deletes one, and the visitor reads them newest first, then in the history once resolved', async () => {
    const checkout = await createService('Checkout API', 'http://127.0.0.1:9/');
    await createService('Search', 'http://127.0.0.1:9/');
    const slug = `shop-${Date.now()}`;
    const statusPage = await createPage(slug, 'Shop status', [checkout.id]);

    const page = await h.signedInPage(owner, '/status-pages');
    await page.getByRole('link', { name: 'Shop status' }).click();
    await page.getByRole('heading', { name: 'Shop status', level: 1 }).waitFor();
    await page.getByText('No incident written on this page yet.').waitFor();
    await page.getByRole('button', { name: 'New incident' }).click();
    const editor = page.getByRole('dialog', { name: 'New incident' });
    // The page's services only.
    expect(await editor.getByRole('checkbox').count()).to.equal(1);
    await editor.getByLabel('Title').fill('Slow checkout');
    await editor.getByLabel('Impact', { exact: true }).selectOption('major');
    await editor.getByRole('checkbox', { name: 'Checkout API' }).check();
    await editor.getByLabel('Impact on Checkout API').selectOption('critical');
    await editor.getByRole('button', { name: 'Create incident' }).click();
    // No message: the API's word stands under the field.
    await editor.getByLabel('Message').and(page.locator('[aria-invalid="true"]')).waitFor();
    await editor.getByLabel('Message').fill('Paying takes a minute for some customers. We are looking into it.');
    await editor.getByRole('button', { name: 'Create incident' }).click();

    await page.getByRole('heading', { name: 'Slow checkout', level: 1 }).waitFor();
    const [stored] = (await h.controlPlane.api.get(`/status-pages/${statusPage.id}/incidents`, owner.token)).body as any[];
    expect(stored).to.include({ title: 'Slow checkout', status: 'investigating', impact: 'major' });
    expect(stored.affected).to.deep.equal([{ service_id: checkout.id, service_name: 'Checkout API', impact: 'critical' }]);

    const postUpdate = async (status: string, message: string) => {
      await page.getByRole('button', { name: 'Post update' }).click();
      const dialog = page.getByRole('dialog', { name: 'Post update' });
      await dialog.getByLabel('Status').selectOption(status);
      await dialog.getByLabel('Message').fill(message);
      await dialog.getByRole('button', { name: 'Post update' }).click();
      await dialog.waitFor({ state: 'hidden' });
    };
    await postUpdate('identified', 'A missing index slows the paymnet query.');
    await postUpdate('monitoring', 'The index is built; payments are fast again. We are watching.');
    const timeline = timelineOf(page, 'Slow checkout');
    await timeline.nth(2).waitFor();
    expect(await timeline.locator('.incident-state').allInnerTexts()).to.deep.equal(['Monitoring', 'Identified', 'Investigating']);

    // Correct the typo of the first update, and take back a wrong second thought.
    await timeline.nth(1).getByRole('button', { name: /^Edit update/ }).click();
    const edit = page.getByRole('dialog', { name: 'Edit update' });
    await edit.getByLabel('Message').fill('A missing index slows the payment query.');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });
    await timeline.nth(1).getByText('A missing index slows the payment query.').waitFor();
    await postUpdate('monitoring', 'Posted by mistake.');
    await timeline.nth(3).waitFor();
    await timeline.nth(0).getByRole('button', { name: /^Delete update/ }).click();
    await page.getByRole('dialog', { name: /^Delete update/ }).getByRole('button', { name: 'Delete' }).click();
    await timeline.nth(3).waitFor({ state: 'detached' });

    const visitor = await visit(slug);
    const incident = visitor.page.getByRole('region', { name: 'Open incidents' }).getByRole('article', { name: 'Slow checkout' });
    await incident.waitFor();
    await incident.getByText('Major impact').waitFor();
    await incident.getByText('Affects Checkout API').waitFor();
    const messages = await timelineOf(visitor.page, 'Slow checkout').locator('.public-update-message').allInnerTexts();
    expect(messages).to.deep.equal([
      'The index is built; payments are fast again. We are watching.',
      'A missing index slows the payment query.',
      'Paying takes a minute for some customers. We are looking into it.',
    ]);
    expect(visitor.errors).to.deep.equal([]);

    await page.getByRole('button', { name: 'Resolve' }).click();
    const resolve = page.getByRole('dialog', { name: 'Resolve Slow checkout' });
    expect(await resolve.getByLabel('Status').inputValue()).to.equal('resolved');
    await resolve.getByRole('button', { name: 'Resolve' }).click();
    await resolve.waitFor({ state: 'hidden' });
    await page.getByRole('region', { name: 'About this incident' }).locator('.incident-state', { hasText: 'Resolved' }).waitFor();

    await page.getByRole('button', { name: 'Edit incident Slow checkout' }).click();
    const correct = page.getByRole('dialog', { name: 'Edit incident Slow checkout' });
    await correct.getByLabel('Title').fill('Slow checkout payments');
    await correct.getByLabel('Impact').selectOption('minor');
    await correct.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Slow checkout payments', level: 1 }).waitFor();
    expect((await h.controlPlane.api.get(`/status-pages/${statusPage.id}/incidents/${stored.id}`, owner.token)).body).to.include({ title: 'Slow checkout payments', impact: 'minor' });

    const later = await visit(slug);
    const past = later.page.getByRole('region', { name: 'Past incidents' }).getByRole('article', { name: 'Slow checkout payments' });
    await past.waitFor();
    await past.getByText('This incident has been resolved.').waitFor();
    expect(await later.page.getByRole('region', { name: 'Open incidents' }).count()).to.equal(0);
  });

  it('opens an incident from an alert, with the alert\'s service and title filled in on the page that shows the service', async () => {
    const rule = await h.controlPlane.api.post('/alert-rules', { name: 'Anything down', severity: 'critical', condition: { consecutive_failures: 1 } }, owner.token);
    expect(rule.status, rule.text).to.equal(201);
    const billing = await createService('Billing', 'http://127.0.0.1:9/');
    const other = await createService('Docs', 'http://127.0.0.1:9/');
    await createPage(`docs-${Date.now()}`, 'Docs status', [other.id]);
    const slug = `billing-${Date.now()}`;
    const billingPage = await createPage(slug, 'Billing status', [billing.id]);

    const page = await h.signedInPage(owner, '/alerts');
    const alert = page.getByRole('article', { name: 'Billing is RED' });
    await alert.waitFor({ timeout: 30_000 });
    await alert.getByRole('button', { name: 'Open an incident' }).click();
    const dialog = page.getByRole('dialog', { name: 'Open an incident' });
    expect(await dialog.getByLabel('Status page').locator('option:checked').innerText()).to.equal('Billing status');
    expect(await dialog.getByLabel('Title').inputValue()).to.equal('Billing is RED');
    expect(await dialog.getByRole('checkbox', { name: 'Billing' }).isChecked()).to.equal(true);
    await dialog.getByLabel('Message').fill('Invoices cannot be downloaded right now.');
    await dialog.getByRole('button', { name: 'Create incident' }).click();
    await page.getByRole('heading', { name: 'Billing is RED', level: 1 }).waitFor();

    const [incident] = (await h.controlPlane.api.get(`/status-pages/${billingPage.id}/incidents`, owner.token)).body as any[];
    const firing = ((await h.controlPlane.api.get('/alerts?status=firing', owner.token)).body as any[]).find((a) => a.service_id === billing.id);
    expect(incident.alert_id).to.equal(firing.id);
    expect(incident.affected.map((a: any) => a.service_id)).to.deep.equal([billing.id]);

    // The visitor reads the written incident, not the alert besides it.
    const visitor = await visit(slug);
    const open = visitor.page.getByRole('region', { name: 'Open incidents' });
    await open.getByRole('article', { name: 'Billing is RED' }).waitFor();
    expect(await open.locator('.public-incidents > li').count()).to.equal(1);
  });

  it('pages through the past incidents ten at a time with "Older"', async () => {
    const service = await createService('Archive', 'http://127.0.0.1:9/');
    const slug = `archive-${Date.now()}`;
    const statusPage = await createPage(slug, 'Archive status', [service.id]);
    for (let i = 1; i <= 12; i++) {
      const started = new Date(Date.now() - (i + 1) * 86_400_000).toISOString();
      const created = await h.controlPlane.api.post(`/status-pages/${statusPage.id}/incidents`, { title: `Outage ${i}`, message: 'Down.', starts_at: started }, owner.token);
      expect(created.status, created.text).to.equal(201);
      const resolved = await h.controlPlane.api.post(`/status-pages/${statusPage.id}/incidents/${created.body.id}/updates`, { status: 'resolved', message: 'Back.' }, owner.token);
      expect(resolved.status, resolved.text).to.equal(201);
    }

    const { page, errors } = await visit(slug);
    const past = page.getByRole('region', { name: 'Past incidents' });
    const entries = past.locator('.public-history > li');
    await entries.nth(9).waitFor();
    expect(await entries.count()).to.equal(10);
    // Newest first.
    expect(await entries.first().getByRole('heading').innerText()).to.equal('Outage 1');
    await past.getByRole('button', { name: 'Older' }).click();
    await entries.nth(11).waitFor();
    expect(await entries.last().getByRole('heading').innerText()).to.equal('Outage 12');
    await past.getByRole('button', { name: 'Older' }).waitFor({ state: 'detached' });
    expect(errors).to.deep.equal([]);
  });
});
