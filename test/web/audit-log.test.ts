// The audit log page in a real browser: a change made through the API is listed with who and
// what, opens to its fields before and after, is found by the filters and downloaded as CSV;
// the retention is set there; a member is told the log is for admins.
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';

describe('dashboard: audit log', function () {
  this.timeout(90_000);
  let h: DashboardHarness;
  let owner: TestUser;
  let serviceId: string;

  before(async function () {
    h = await startDashboard(this);
    owner = await h.controlPlane.api.newUser('audit-page-owner');
    const service = await h.controlPlane.api.post('/services', { name: 'Checkout', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, owner.token);
    expect(service.status, service.text).to.equal(201);
    serviceId = service.body.id;
    expect((await h.controlPlane.api.put(`/services/${serviceId}`, { name: 'Checkout API' }, owner.token)).status).to.equal(200);
    expect((await h.controlPlane.api.post('/teams', { name: 'Payments' }, owner.token)).status).to.equal(201);
  });
  after(() => h?.stop());

  it('lists a change made through the API, shows its fields before and after, filters it and downloads it', async () => {
    const page = await h.signedInPage(owner, '/services');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();

    const update = page.getByRole('row').filter({ hasText: serviceId }).filter({ hasText: 'update' });
    await update.waitFor();
    expect(await update.getByRole('cell').allInnerTexts()).to.include.members([owner.email, 'update', 'service', serviceId]);
    const teamRow = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'team', exact: true }) });
    await teamRow.waitFor();

    await update.getByRole('button', { name: 'Show changes' }).click();
    const changes = page.getByRole('table', { name: `Changes of service ${serviceId}` });
    const name = changes.getByRole('row', { name: /^name/ });
    expect(await name.getByRole('cell').allInnerTexts()).to.deep.equal(['"Checkout"', '"Checkout API"']);
    await update.getByRole('button', { name: 'Hide changes' }).click();
    await changes.waitFor({ state: 'detached' });

    await page.getByLabel('Resource', { exact: true }).fill('service');
    await page.getByLabel('Action', { exact: true }).fill('update');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const entries = page.getByRole('region', { name: 'Entries' });
    await teamRow.waitFor({ state: 'detached' });
    // The filtered page replaces the list once loaded (a loading message stands between).
    const rows = entries.locator('tbody > tr');
    await rows.first().waitFor();
    expect(await rows.count()).to.equal(1);
    expect(await rows.first().innerText()).to.include(serviceId);

    const download = page.waitForEvent('download');
    await entries.getByRole('button', { name: 'Download CSV' }).click();
    const csv = await readFile((await (await download).path())!, 'utf8');
    const lines = csv.trim().split('\r\n');
    expect(lines).to.have.length(2);
    expect(lines[1]).to.include(`,update,service,${serviceId},`);

    await page.getByLabel('Who').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await entries.getByText('No entry matches.').waitFor();
  });

  it('sets the retention, a change that appears in the log', async () => {
    const page = await h.signedInPage(owner, '/audit-log');
    const retention = page.getByLabel('Keep the audit log for (days)');
    expect(await retention.inputValue()).to.equal('400');
    await retention.fill('90');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await h.controlPlane.api.get('/audit-log/settings', owner.token)).body).to.deep.equal({ retention_days: 90 });
    await page.getByRole('row').filter({ hasText: 'audit_log_settings' }).waitFor();
  });

  it('tells a member the log is for admins and owners', async () => {
    const member = await h.controlPlane.api.newUser('audit-page-member');
    expect((await h.controlPlane.api.post('/members', { email: member.email, role: 'member' }, owner.token)).status).to.equal(201);
    const page = await h.signedInPage(member, '/services');
    await page.getByLabel('Organization').selectOption(owner.orgId);
    await page.getByText(`${member.email} · member`).waitFor();
    await page.goto('/audit-log');
    await page.getByText('Only admins and owners can read the audit log.').waitFor();
    expect(await page.getByRole('table').count()).to.equal(0);
  });
});
