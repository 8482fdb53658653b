// The maintenance page in a real browser: a recurring window made with the form (schedule,
// time zone, duration), its next occurrences in its row and its form, a cron mistake shown at
// its field, and a switch to a one-off window.
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';

describe('dashboard: maintenance windows', function () {
  this.timeout(90_000);
  let h: DashboardHarness;
  let owner: TestUser;

  before(async function () {
    h = await startDashboard(this);
    owner = await h.controlPlane.api.newUser('maintenance-owner');
  });
  after(async () => {
    await h?.stop();
  });

  const stored = async () => (await h.controlPlane.api.get('/maintenance-windows', owner.token)).body as any[];

  it('creates a recurring window, shows its next occurrences, and switches it to a one-off window', async () => {
    const page = await h.signedInPage(owner, '/maintenance');
    await page.getByRole('button', { name: 'Create window' }).click();
    const form = page.getByRole('dialog', { name: 'Create maintenance window' });
    await form.getByLabel('Name').fill('Patch Sunday');
    await form.getByRole('radio', { name: 'Recurring' }).check();
    await form.getByLabel('Schedule (cron)').fill('30 2 * * 7x');
    await form.getByLabel('Time zone').selectOption('Europe/Berlin');
    await form.getByLabel('Duration (minutes)').fill('90');
    await form.getByRole('button', { name: 'Create window' }).click();
    // The API's message stands under the field it names.
    const schedule = form.getByLabel('Schedule (cron)');
    await schedule.and(page.locator('[aria-invalid="true"]')).waitFor();
    await form.getByText(/schedule is not a valid cron expression/).waitFor();

    await schedule.fill('30 2 * * 0');
    await form.getByRole('button', { name: 'Create window' }).click();
    await form.waitFor({ state: 'hidden' });
    const [window] = await stored();
    expect(window).to.include({ schedule: '30 2 * * 0', timezone: 'Europe/Berlin', duration_minutes: 90, starts_at: null });

    const row = page.getByRole('row', { name: /Patch Sunday/ });
    await row.getByText('in Europe/Berlin, 1 h 30 min each').waitFor();
    await row.getByRole('cell', { name: 'Scheduled' }).waitFor();
    const listed = row.getByRole('list', { name: 'Next occurrences of Patch Sunday' }).getByRole('listitem');
    expect(await listed.count()).to.equal(3);
    expect(await listed.first().locator('time').getAttribute('datetime')).to.equal(window.next_occurrences[0].starts_at);

    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Patch Sunday' });
    expect(await edit.getByRole('list', { name: 'Next occurrences as saved' }).getByRole('listitem').count()).to.equal(5);
    expect(await edit.getByLabel('Time zone').inputValue()).to.equal('Europe/Berlin');
    await edit.getByRole('radio', { name: 'One-off' }).check();
    await edit.getByLabel('Starts').fill('2031-05-04T10:00');
    await edit.getByLabel('Ends').fill('2031-05-04T12:30');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });

    const [switched] = await stored();
    expect(switched).to.include({ id: window.id, schedule: null, timezone: null, duration_minutes: null });
    const offsetMs = await page.evaluate(() => new Date('2031-05-04T10:00').getTime() - Date.parse('2031-05-04T10:00Z'));
    expect(Date.parse(switched.starts_at)).to.equal(Date.parse('2031-05-04T10:00Z') + offsetMs);
    await row.getByText('Recurring').waitFor({ state: 'detached' });
    expect(await row.getByRole('list', { name: 'Next occurrences of Patch Sunday' }).getByRole('listitem').count()).to.equal(1);
  });
});
