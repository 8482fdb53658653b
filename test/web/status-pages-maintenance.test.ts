// Maintenance on status pages in a real browser: a window made in the form names the pages
// that announce it; a visitor sees it upcoming, and while it runs its service "Under
// maintenance" instead of down.
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';

/** A time as a datetime-local input holds it: the browser and this process share the machine's time zone. */
function localInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

describe('dashboard: maintenance on status pages', function () {
  this.timeout(90_000);
  let h: DashboardHarness;
  let owner: TestUser;

  before(async function () {
    h = await startDashboard(this, { embeddedAgent: true });
    owner = await h.controlPlane.api.newUser('announce-owner');
  });
  after(async () => {
    await h?.stop();
  });

  it('announces a window on the pages chosen in its form: upcoming, then its service under maintenance while it runs', async () => {
    const created = await h.controlPlane.api.post('/services', { name: 'Database', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, owner.token);
    expect(created.status, created.text).to.equal(201);
    const slug = `ops-${Date.now()}`;
    const statusPage = await h.controlPlane.api.post('/status-pages', { slug, title: 'Ops status', service_ids: [created.body.id] }, owner.token);
    expect(statusPage.status, statusPage.text).to.equal(201);

    const page = await h.signedInPage(owner, '/maintenance');
    await page.getByRole('button', { name: 'Create window' }).click();
    const form = page.getByRole('dialog', { name: 'Create maintenance window' });
    await form.getByLabel('Name').fill('Database upgrade');
    await form.getByLabel('Starts').fill(localInput(Date.now() + 86_400_000));
    await form.getByLabel('Ends').fill(localInput(Date.now() + 2 * 86_400_000));
    await form.getByRole('group', { name: 'Services' }).getByLabel('Database').check();
    await form.getByRole('group', { name: 'Announce on status pages' }).getByLabel('Ops status').check();
    await form.getByLabel('Announce hours before').fill('-1');
    await form.getByRole('button', { name: 'Create window' }).click();
    await form.getByLabel('Announce hours before').and(page.locator('[aria-invalid="true"]')).waitFor();
    await form.getByLabel('Announce hours before').fill('48');
    await form.getByRole('button', { name: 'Create window' }).click();
    await form.waitFor({ state: 'hidden' });
    const [window] = (await h.controlPlane.api.get('/maintenance-windows', owner.token)).body as any[];
    expect(window).to.include({ announce_hours_before: 48 });
    expect(window.status_page_ids).to.deep.equal([statusPage.body.id]);
    await page.getByRole('row', { name: /Database upgrade/ }).getByRole('cell', { name: 'Ops status, 48 h ahead' }).waitFor();

    const { page: visitor } = await h.newPage();
    await visitor.goto(`/status/${slug}`);
    const announced = visitor.getByRole('region', { name: 'Maintenance' }).getByRole('listitem').filter({ hasText: 'Database upgrade' });
    await announced.getByText('Upcoming').waitFor();

    // Moved to now, it runs: its service is under maintenance, not down.
    const started = await h.controlPlane.api.put(`/maintenance-windows/${window.id}`, { starts_at: new Date(Date.now() - 60_000).toISOString(), ends_at: new Date(Date.now() + 3_600_000).toISOString() }, owner.token);
    expect(started.status, started.text).to.equal(200);
    const { page: later } = await h.newPage();
    await later.goto(`/status/${slug}`);
    await later.getByRole('region', { name: 'Maintenance' }).getByText('In progress').waitFor();
    const card = later.getByRole('listitem').filter({ has: later.getByRole('heading', { name: 'Database' }) });
    await card.getByText('Under maintenance').waitFor();
    expect(await card.getByText(/^(RED|YELLOW|GREEN)$/).count()).to.equal(0);
  });
});
