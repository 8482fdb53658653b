// Pause and bulk actions in a real browser: rows selected on the overview, paused, resumed,
// tagged and deleted from the bulk action bar, the outcome said per action; Pause and Resume
// on a service's page; a viewer selects nothing.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';

const serviceRow = (page: Page, name: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });

describe('dashboard: pause and bulk actions', function () {
  this.timeout(60_000);
  let h: DashboardHarness;
  let owner: TestUser;

  before(async function () {
    h = await startDashboard(this);
    owner = await h.controlPlane.api.newUser('bulk-owner');
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [owner.orgId]);
  });
  after(() => h?.stop());

  const createService = async (user: TestUser, name: string) => {
    // A location without an agent: nothing checks these, so nothing but the test changes them.
    const r = await h.controlPlane.api.post('/services', { name, check_type: 'HTTP', endpoint: 'http://127.0.0.1:9/', locations: ['nowhere'] }, user.token);
    expect(r.status, r.text).to.equal(201);
    return r.body as { id: string; name: string };
  };
  const serviceOf = async (id: string) => (await h.controlPlane.api.get(`/services/${id}`, owner.token)).body;

  it('pauses the selected services from the overview, and their rows show "Paused"; then resumes, tags and deletes', async () => {
    const [alpha, beta, gamma, delta] = [await createService(owner, 'alpha'), await createService(owner, 'beta'), await createService(owner, 'gamma'), await createService(owner, 'delta')];
    const page = await h.signedInPage(owner);
    await serviceRow(page, 'delta').waitFor();
    const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
    expect(await bar.count(), 'no bar before a selection').to.equal(0);

    await page.getByRole('checkbox', { name: 'Select alpha', exact: true }).check();
    await page.getByRole('checkbox', { name: 'Select beta', exact: true }).check();
    await bar.getByText('2 services selected').waitFor();
    await bar.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Pause: 2 paused.' }).waitFor();
    for (const name of ['alpha', 'beta']) await serviceRow(page, name).getByText('Paused', { exact: true }).waitFor();
    for (const name of ['gamma', 'delta']) expect(await serviceRow(page, name).getByText('Paused', { exact: true }).count(), name).to.equal(0);
    expect((await serviceOf(alpha.id)).paused).to.equal(true);
    expect((await serviceOf(gamma.id)).paused).to.equal(false);
    await page.getByRole('list', { name: 'Service counts' }).getByText('PAUSED 2').waitFor();

    // Select all: the two paused ones resume, the two others were running already.
    await page.getByRole('checkbox', { name: 'Select all services shown' }).check();
    await bar.getByText('4 services selected').waitFor();
    await bar.getByRole('button', { name: 'Resume', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Resume: 2 resumed, 2 unchanged.' }).waitFor();
    await poll(async () => (await page.getByText('Paused', { exact: true }).count()) === 0, { what: 'no row paused' });

    await page.getByRole('checkbox', { name: 'Select all services shown' }).uncheck();
    await page.getByRole('checkbox', { name: 'Select gamma', exact: true }).check();
    await bar.getByRole('button', { name: 'Add tags…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add tags: 1 service' });
    await dialog.getByLabel('Tags').fill('blue, green');
    await dialog.getByRole('button', { name: 'Add tags' }).click();
    await page.getByRole('status').filter({ hasText: 'Add tags: 1 updated.' }).waitFor();
    expect((await serviceOf(gamma.id)).tags).to.deep.equal(['blue', 'green']);

    await bar.getByRole('button', { name: 'Delete…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete 1 service?' });
    await confirm.getByText('This cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Delete 1 service' }).click();
    await page.getByRole('status').filter({ hasText: 'Delete: 1 deleted.' }).waitFor();
    await serviceRow(page, 'gamma').waitFor({ state: 'detached' });
    expect((await h.controlPlane.api.get(`/services/${gamma.id}`, owner.token)).status).to.equal(404);
    expect((await serviceOf(beta.id)).paused).to.equal(false);
    expect((await serviceOf(delta.id)).tags).to.deep.equal([]);
  });

  it('asks for tags before adding them, and names a skipped service with the reason', async () => {
    const epsilon = await createService(owner, 'epsilon');
    const heartbeat = await h.controlPlane.api.post('/heartbeats', { name: 'nightly backup', interval_seconds: 3600, grace_seconds: 60 }, owner.token);
    expect(heartbeat.status, heartbeat.text).to.equal(201);
    const page = await h.signedInPage(owner);
    await page.getByRole('checkbox', { name: 'Select epsilon', exact: true }).check();
    await page.getByRole('checkbox', { name: 'Select nightly backup', exact: true }).check();
    const bar = page.getByRole('toolbar', { name: 'Bulk actions' });

    await bar.getByRole('button', { name: 'Add tags…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add tags: 2 services' });
    await dialog.getByRole('button', { name: 'Add tags' }).click();
    await dialog.getByText('Name at least one of the tags.').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await bar.getByRole('button', { name: 'Pause', exact: true }).click();
    const result = page.getByRole('status').filter({ hasText: 'Pause: 1 paused, 1 skipped.' });
    await result.waitFor();
    await result.getByRole('list', { name: 'Skipped services' }).getByText('nightly backup: this service is a heartbeat: change it through /api/v1/heartbeats').waitFor();
    expect((await serviceOf(epsilon.id)).paused).to.equal(true);
  });

  it('pauses and resumes a service from its page, which says it is paused and keeps its status', async () => {
    const zeta = await createService(owner, 'zeta');
    const page = await h.signedInPage(owner, `/services/${zeta.id}`);
    await page.getByRole('heading', { name: 'zeta', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Paused: no agent checks this service' }).waitFor();
    await page.getByRole('region', { name: 'About this service' }).getByText('Paused', { exact: true }).waitFor();
    // No check on demand while paused.
    expect(await page.getByRole('button', { name: 'Check now' }).count()).to.equal(0);
    expect((await serviceOf(zeta.id)).paused).to.equal(true);

    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await page.getByRole('button', { name: 'Pause', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Check now' }).waitFor();
    expect((await serviceOf(zeta.id)).paused).to.equal(false);
  });

  it('offers a viewer no selection and no bulk actions', async () => {
    const viewer = await h.controlPlane.api.newUser('bulk-viewer');
    const added = await h.controlPlane.api.post('/members', { email: viewer.email, role: 'viewer' }, owner.token);
    expect(added.status, added.text).to.be.oneOf([200, 201]);
    await createService(owner, 'eta');
    const page = await h.signedInPage(viewer);
    await page.getByLabel('Organization').selectOption(owner.orgId);
    await page.getByText('· viewer').waitFor();
    await serviceRow(page, 'eta').waitFor();
    expect(await page.getByRole('checkbox').count()).to.equal(0);
  });
});
