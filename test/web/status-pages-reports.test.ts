// The Reports page in a real browser: a range and services chosen, the figures of the checks
// the test's services produced, the same report downloaded as CSV, and the monthly e-mail
// settings saved by an admin (a wrong address shown at its field).
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { startSmtpSink, type SmtpSink } from '../fixtures/smtp-sink.js';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';
import { poll } from '../support/poll.js';

describe('dashboard: reports', function () {
  this.timeout(90_000);
  let h: DashboardHarness;
  let sink: SmtpSink;
  let owner: TestUser;

  before(async function () {
    // The monthly e-mail can be turned on only where the control plane sends mail.
    sink = await startSmtpSink();
    h = await startDashboard(this, { embeddedAgent: true, env: sink.env });
    owner = await h.controlPlane.api.newUser('reports-owner');
  });
  after(async () => {
    await h?.stop();
    await sink?.close();
  });

  it('shows the uptime of chosen services over a range, downloads it as CSV and saves the monthly e-mail', async () => {
    const ids: Record<string, string> = {};
    for (const name of ['Down service', 'Other service']) {
      const created = await h.controlPlane.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, owner.token);
      expect(created.status, created.text).to.equal(201);
      ids[name] = created.body.id;
    }
    // The closed port fails the first check of each; the report reads it once rolled up.
    await poll(
      async () => {
        const answer = await h.controlPlane.api.get(`/reports/uptime?service_ids=${ids['Down service']}`, owner.token);
        return answer.body.services?.[0]?.failed_checks === 1;
      },
      { timeoutMs: 30_000, what: 'the failed check in the report' },
    );

    const page = await h.signedInPage(owner, '/services');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
    await page.getByRole('radio', { name: 'Chosen services' }).check();
    await page.getByRole('group', { name: 'Services in the report' }).getByLabel('Down service').check();
    await page.getByRole('button', { name: 'Show report' }).click();

    const report = page.getByRole('region', { name: /^Uptime from/ });
    const row = report.getByRole('row', { name: /Down service/ });
    await row.waitFor();
    const cells = await row.getByRole('cell').allInnerTexts();
    expect(cells.slice(0, 4)).to.deep.equal(['Down service', '0.00%', '1', '1']);
    expect(await report.getByRole('row', { name: /Other service/ }).count()).to.equal(0);

    const download = page.waitForEvent('download');
    await report.getByRole('button', { name: 'Download CSV' }).click();
    const csv = await readFile((await (await download).path())!, 'utf8');
    expect(csv).to.include('Down service');
    expect(csv).not.to.include('Other service');

    const settings = page.getByRole('region', { name: 'Monthly report e-mail' });
    await settings.getByLabel('Send the monthly report').check();
    await settings.getByLabel('Recipients').fill('boss@example.com\nnot an address');
    await settings.getByRole('button', { name: 'Save' }).click();
    await settings.getByLabel('Recipients').and(page.locator('[aria-invalid="true"]')).waitFor();
    await settings.getByLabel('Recipients').fill('boss@example.com\nclient@example.com');
    await settings.getByRole('button', { name: 'Save' }).click();
    await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await h.controlPlane.api.get('/reports/settings', owner.token)).body).to.deep.equal({
      monthly_email: { enabled: true, recipients: ['boss@example.com', 'client@example.com'] },
    });
  });
});
