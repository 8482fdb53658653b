// Who may see a status page, set in the editor of a real browser: a password page with a
// component group, a custom domain and no mirrored alerts (a wrong password refused, the right
// one shows it, on its address and on its custom domain at "/"); an address allowlist whose
// mistake is shown at its field; a members-only page that only a signed-in member sees.
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import type { TestUser } from '../support/api-client.js';
import { CHROMIUM, CHROMIUM_ARGS, startDashboard, type DashboardHarness } from '../support/browser.js';

// A domain belongs to one page of the installation: each run takes its own.
const DOMAIN = `status-${Date.now()}.example.test`;

describe('dashboard: status page access', function () {
  this.timeout(90_000);
  let h: DashboardHarness;
  let owner: TestUser;
  let services: Record<string, string>;
  let domainBrowser: Browser | undefined;

  before(async function () {
    h = await startDashboard(this);
    owner = await h.controlPlane.api.newUser('access-owner');
    services = {};
    for (const name of ['Checkout', 'Search']) {
      const created = await h.controlPlane.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, owner.token);
      expect(created.status, created.text).to.equal(201);
      services[name] = created.body.id;
    }
  });
  after(async () => {
    await domainBrowser?.close();
    await h?.stop();
  });

  it('makes a password page with a component, a custom domain and no mirrored alerts; a visitor is refused a wrong password and reads the page with the right one', async () => {
    const slug = `team-${Date.now()}`;
    const page = await h.signedInPage(owner, '/status-pages');
    await page.getByRole('button', { name: 'Create status page' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create status page' });
    await dialog.getByLabel('Title').fill('Team status');
    await dialog.getByLabel('Slug').fill(slug);
    await dialog.getByRole('radio', { name: /^Password/ }).check();
    await dialog.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await dialog.getByLabel('Custom domain').fill(DOMAIN);
    await dialog.getByLabel('Show open alerts of its services as incidents').uncheck();
    await dialog.getByRole('button', { name: 'Add group' }).click();
    await dialog.getByLabel('Name of group 1').fill('Shop');
    await dialog.getByRole('checkbox', { name: 'Checkout', exact: true }).check();
    await dialog.getByRole('checkbox', { name: 'Search', exact: true }).check();
    await dialog.getByLabel('Group of Checkout').selectOption({ label: 'Shop' });
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Team status/ });
    await row.getByRole('cell', { name: 'Password', exact: true }).waitFor();

    const [stored] = (await h.controlPlane.api.get('/status-pages', owner.token)).body as any[];
    expect(stored).to.deep.include({
      access: 'password',
      password_set: true,
      custom_domain: DOMAIN,
      auto_incidents: false,
      service_ids: [services.Checkout, services.Search],
      groups: [{ name: 'Shop', service_ids: [services.Checkout] }],
    });

    const { page: visitor, errors } = await h.newPage();
    await visitor.goto(`/status/${slug}`);
    await visitor.getByRole('heading', { name: 'This status page is protected' }).waitFor();
    await visitor.getByLabel('Password').fill('not the password');
    await visitor.getByRole('button', { name: 'Open the page' }).click();
    await visitor.getByText('Wrong password. Try again.').waitFor();
    await visitor.getByLabel('Password').fill('correct horse battery');
    await visitor.getByRole('button', { name: 'Open the page' }).click();
    await visitor.getByRole('heading', { name: 'Team status', level: 1 }).waitFor();

    // The component folds away under its name and worst status; Search is in none.
    const shop = visitor.getByRole('region', { name: 'Shop' });
    const toggle = shop.getByRole('button', { name: 'Shop' });
    expect(await toggle.getAttribute('aria-expanded')).to.equal('true');
    await shop.getByRole('heading', { name: 'Checkout' }).waitFor();
    await toggle.click();
    await shop.getByRole('heading', { name: 'Checkout' }).waitFor({ state: 'hidden' });
    await visitor.getByRole('heading', { name: 'Search' }).waitFor();
    expect(errors).to.deep.equal([]);

    // The custom domain shows the page at "/", asking for its password there too.
    domainBrowser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${DOMAIN} 127.0.0.1`], timeout: 30_000 });
    const onDomain = await (await domainBrowser.newContext()).newPage();
    await onDomain.goto(`http://${DOMAIN}:${new URL(h.controlPlane.baseUrl).port}/`);
    await onDomain.getByLabel('Password').fill('correct horse battery');
    await onDomain.getByRole('button', { name: 'Open the page' }).click();
    await onDomain.getByRole('heading', { name: 'Team status', level: 1 }).waitFor();
  });

  it('shows an allowlist mistake at its field and lets in a visitor from a listed address', async () => {
    const slug = `office-${Date.now()}`;
    const page = await h.signedInPage(owner, '/status-pages');
    await page.getByRole('button', { name: 'Create status page' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create status page' });
    await dialog.getByLabel('Title').fill('Office status');
    await dialog.getByLabel('Slug').fill(slug);
    await dialog.getByRole('radio', { name: /^IP allowlist/ }).check();
    await dialog.getByLabel('Allowed addresses').fill('10.0.0.0/8\nnot-an-address');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await dialog.getByLabel('Allowed addresses').and(page.locator('[aria-invalid="true"]')).waitFor();
    await dialog.getByText(/not-an-address/).first().waitFor();
    await dialog.getByLabel('Allowed addresses').fill('10.0.0.0/8\n127.0.0.1');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });

    const { page: visitor } = await h.newPage();
    await visitor.goto(`/status/${slug}`);
    await visitor.getByRole('heading', { name: 'Office status', level: 1 }).waitFor();
  });

  it('shows a members-only page to a signed-in member and to nobody else', async () => {
    const slug = `staff-${Date.now()}`;
    const created = await h.controlPlane.api.post('/status-pages', { slug, title: 'Staff status', access: 'members', service_ids: [services.Search] }, owner.token);
    expect(created.status, created.text).to.equal(201);

    const { page: stranger } = await h.newPage();
    await stranger.goto(`/status/${slug}`);
    await stranger.getByRole('heading', { name: 'This status page does not exist' }).waitFor();
    expect(await stranger.getByText('Staff status').count()).to.equal(0);

    const member = await h.signedInPage(owner, `/status/${slug}`);
    await member.getByRole('heading', { name: 'Staff status', level: 1 }).waitFor();
  });
});
