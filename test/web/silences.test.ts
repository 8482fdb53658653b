// Quiet alerting in a real browser: an alert snoozed for 4 h from its card shows as silenced
// until then, its silence is listed on the Silences page and expired there; silences made and
// changed by matchers; an alert rule by selector with a recovery threshold and reminders; the
// Flapping badge; what a viewer does not see. The embedded agent checks a service pointed at a
// closed port, so its alert fires.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';

const HOUR_MS = 3_600_000;

/** The message shown under a field: the last element its aria-describedby names. */
async function fieldError(page: Page, label: string): Promise<string> {
  const field = page.getByLabel(label, { exact: true });
  await field.and(page.locator('[aria-invalid="true"]')).waitFor();
  const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
  return page.locator(`[id="${describedBy.split(' ').pop()}"]`).innerText();
}

describe('dashboard: silences, snooze and quiet rules', function () {
  this.timeout(90_000);
  let h: DashboardHarness;
  let owner: TestUser;
  let checkoutId: string;
  let ledgerId: string;

  before(async function () {
    h = await startDashboard(this, { embeddedAgent: true });
    owner = await h.controlPlane.api.newUser('silences-owner');
    const rule = await h.controlPlane.api.post('/alert-rules', { name: 'Anything red', severity: 'critical', condition: { statuses: ['RED'] } }, owner.token);
    expect(rule.status, rule.text).to.equal(201);
    const service = await h.controlPlane.api.post('/services', { name: 'Checkout', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 300 }, owner.token);
    expect(service.status, service.text).to.equal(201);
    checkoutId = service.body.id;
    // A location without an agent: nothing checks it, so no rule fires on it.
    const ledger = await h.controlPlane.api.post('/services', { name: 'Ledger', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', locations: ['nowhere'] }, owner.token);
    expect(ledger.status, ledger.text).to.equal(201);
    ledgerId = ledger.body.id;
  });
  after(() => h?.stop());

  const silences = async (state = 'all') => (await h.controlPlane.api.get(`/silences?state=${state}`, owner.token)).body as { id: string; state: string; comment: string; matchers: Record<string, unknown>; ends_at: string }[];
  const checkoutAlert = async () => ((await h.controlPlane.api.get('/alerts?status=all', owner.token)).body as { service_id: string; status: string; silenced_by: string | null }[]).find((a) => a.service_id === checkoutId && a.status !== 'resolved');

  it('snoozes an alert for 4 h from its card, shows it silenced until then, and expires the silence on the Silences page', async () => {
    const page = await h.signedInPage(owner, '/alerts');
    const alert = page.getByRole('article', { name: 'Checkout is RED' });
    await alert.getByText('Firing', { exact: true }).waitFor({ timeout: 20_000 });

    await alert.getByRole('button', { name: 'Snooze Checkout is RED' }).click();
    const menu = page.getByRole('menu', { name: 'Snooze Checkout is RED' });
    expect(await menu.getByRole('menuitem').allInnerTexts()).to.deep.equal(['1 h', '4 h', '8 h', '24 h']);
    const asked = Date.now();
    await menu.getByRole('menuitem', { name: '4 h', exact: true }).click();

    await alert.getByText('Silenced', { exact: true }).waitFor();
    const until = alert.getByRole('link', { name: /^Silenced until / });
    await until.waitFor();
    const [silence] = await silences();
    expect(silence).to.deep.include({ state: 'active', comment: 'Snoozed from alert Checkout is RED', matchers: { service_ids: [checkoutId] } });
    expect(Date.parse(silence!.ends_at) - asked).to.be.within(4 * HOUR_MS - 5_000, 4 * HOUR_MS + 60_000);
    expect(await until.locator('time').getAttribute('datetime')).to.equal(silence!.ends_at);
    expect((await checkoutAlert())?.silenced_by).to.equal(silence!.id);
    expect(await alert.getByRole('button', { name: /Snooze/ }).count(), 'no second snooze').to.equal(0);

    await until.click();
    await page.getByRole('heading', { name: 'Silences', level: 1 }).waitFor();
    const row = page.getByRole('row', { name: /Snoozed from alert Checkout is RED/ });
    await row.getByText('Active', { exact: true }).waitFor();
    await row.getByRole('cell', { name: 'service: Checkout', exact: true }).waitFor();

    await row.getByRole('button', { name: 'Expire silence "Snoozed from alert Checkout is RED"' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByText('No silence is active or pending.').waitFor();
    await page.getByLabel('Show').selectOption('expired');
    const expired = page.getByRole('row', { name: /Snoozed from alert Checkout is RED/ });
    await expired.getByText('Expired', { exact: true }).waitFor();
    expect(await expired.getByRole('button', { name: /Expire|Edit/ }).count(), 'an expired silence is not changed').to.equal(0);
    expect((await silences('expired')).map((s) => s.id)).to.deep.equal([silence!.id]);
    await poll(async () => (await checkoutAlert())?.silenced_by === null, { what: 'the alert no longer silenced' });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).click();
    await alert.getByRole('button', { name: 'Snooze Checkout is RED' }).waitFor();
    expect(await alert.getByText('Silenced', { exact: true }).count()).to.equal(0);
  });

  it('creates a silence by tags and environment, with a missing matcher named, and edits it', async () => {
    const page = await h.signedInPage(owner, '/silences');
    await page.getByRole('button', { name: 'Create silence' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create silence' });
    await dialog.getByLabel('Comment').fill('Payments migration');
    await dialog.getByRole('button', { name: 'Create silence' }).click();
    await dialog.getByRole('group', { name: 'Services it covers' }).getByText(/must name at least one of service_ids, tags/).waitFor();

    await dialog.getByLabel('Tags').fill('payments, eu');
    await dialog.getByLabel('Environment').fill('production');
    await dialog.getByLabel('Ends').fill('2031-05-04T12:30');
    await dialog.getByRole('button', { name: 'Create silence' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Payments migration/ });
    await row.getByRole('cell', { name: 'tags: payments, eu · env: production' }).waitFor();
    await row.getByText('Active', { exact: true }).waitFor();

    await row.getByRole('button', { name: 'Edit silence "Payments migration"' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit silence' });
    expect(await edit.getByLabel('Tags').inputValue()).to.equal('payments, eu');
    await edit.getByLabel('Environment').fill('');
    await edit.getByRole('group', { name: 'Check types' }).getByRole('checkbox', { name: 'HTTP', exact: true }).check();
    await edit.getByLabel('Comment').fill('Payments migration, step 2');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });
    await page.getByRole('row', { name: /Payments migration, step 2/ }).getByRole('cell', { name: 'tags: payments, eu · check types: HTTP' }).waitFor();
    const saved = (await silences()).find((s) => s.comment === 'Payments migration, step 2');
    expect(saved?.matchers).to.deep.equal({ tags: ['payments', 'eu'], check_types: ['HTTP'] });
    const offsetMs = await page.evaluate(() => new Date('2031-05-04T12:30').getTime() - Date.parse('2031-05-04T12:30Z'));
    expect(Date.parse(saved!.ends_at), 'the end was not sent again').to.equal(Date.parse('2031-05-04T12:30Z') + offsetMs);
  });

  it('creates a rule by selector with a recovery threshold, reminders and no-data alerts, shown in the list and kept by the API', async () => {
    const page = await h.signedInPage(owner, '/alert-rules');
    await page.getByRole('button', { name: 'Create rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create alert rule' });
    await dialog.getByLabel('Name').fill('Payments in production');
    await dialog.getByLabel('Service', { exact: true }).selectOption({ label: 'Services matching a selector' });
    const selector = dialog.getByRole('group', { name: 'Selector' });
    await selector.getByLabel('Tags').fill('payments, eu');
    await selector.getByLabel('Environment').fill('production');
    await dialog.getByLabel('Recovery threshold').fill('25');
    await dialog.getByLabel('Repeat interval (minutes)').fill('30');
    await dialog.getByLabel('Alert when a service has no data').check();
    await dialog.getByRole('button', { name: 'Create rule' }).click();
    expect(await fieldError(page, 'Recovery threshold')).to.match(/recovery_threshold/);

    await dialog.getByLabel('Recovery threshold').fill('3');
    await dialog.getByRole('button', { name: 'Create rule' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Payments in production/ });
    await row.getByRole('cell', { name: 'tags: payments, eu · env: production', exact: true }).waitFor();
    await row.getByRole('cell', { name: 'Status RED or YELLOW; or no data · resolves after 3 GREEN results · reminds every 30 min', exact: true }).waitFor();

    const rules = (await h.controlPlane.api.get('/alert-rules', owner.token)).body as { id: string; name: string; service_id: string | null; condition: Record<string, unknown> }[];
    const rule = rules.find((r) => r.name === 'Payments in production')!;
    expect(rule.service_id).to.equal(null);
    expect(rule.condition).to.deep.include({ selector: { tags: ['payments', 'eu'], environment: 'production' }, recovery_threshold: 3, repeat_interval_minutes: 30, no_data: true });
    expect(rule.condition).to.not.have.property('agent_offline');

    await row.getByRole('button', { name: 'Edit Payments in production' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Payments in production' });
    expect(await edit.getByLabel('Service', { exact: true }).inputValue()).to.equal('selector');
    expect(await edit.getByLabel('Tags').inputValue()).to.equal('payments, eu');
    expect(await edit.getByLabel('Recovery threshold').inputValue()).to.equal('3');
    await edit.getByLabel('Service', { exact: true }).selectOption({ label: 'Ledger' });
    expect(await edit.getByRole('group', { name: 'Selector' }).count(), 'no selector for one service').to.equal(0);
    await edit.getByLabel('Repeat interval (minutes)').fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });
    await row.getByRole('cell', { name: 'Ledger', exact: true }).waitFor();
    const changed = (await h.controlPlane.api.get(`/alert-rules/${rule.id}`, owner.token)).body;
    expect(changed.service_id).to.equal(ledgerId);
    expect(changed.condition).to.not.have.property('selector');
    expect(changed.condition.repeat_interval_minutes).to.equal(null);
    expect(changed.condition.recovery_threshold).to.equal(3);
  });

  it('shows a flapping service as Flapping beside its status on the overview and its page', async () => {
    // Flap detection itself is tested through ingest (quiet-alerting.test.ts); here the
    // service row holds what it leaves: the flag and changes recent enough to keep it.
    const changes = Array.from({ length: 7 }, (_, i) => Date.now() - i * 1000).reverse();
    await sql('update services set flapping = true, status_changes = $2::jsonb where id = $1', [checkoutId, JSON.stringify(changes)]);
    const page = await h.signedInPage(owner, '/alerts');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Services' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Checkout', exact: true }) });
    await row.getByText('Flapping', { exact: true }).waitFor();
    await row.getByText('RED', { exact: true }).waitFor();

    await row.getByRole('link', { name: 'Checkout', exact: true }).click();
    const facts = page.getByRole('region', { name: 'About this service' });
    await facts.getByText('Flapping', { exact: true }).waitFor();
    await facts.getByText('RED', { exact: true }).waitFor();
  });

  it('shows a viewer the silences and silenced alerts without snooze, create, edit or expire', async () => {
    const viewer = await h.controlPlane.api.newUser('silences-viewer');
    const added = await h.controlPlane.api.post('/members', { email: viewer.email, role: 'viewer' }, owner.token);
    expect(added.status, added.text).to.equal(201);
    const snoozed = await h.controlPlane.api.post('/silences', { matchers: { service_ids: [checkoutId] }, ends_at: new Date(Date.now() + HOUR_MS).toISOString(), comment: 'Known outage' }, owner.token);
    expect(snoozed.status, snoozed.text).to.equal(201);

    const page = await h.signedInPage(viewer);
    await page.getByLabel('Organization').selectOption(owner.orgId);
    await page.getByText('· viewer').waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Alerts' }).click();
    const alert = page.getByRole('article', { name: 'Checkout is RED' });
    await alert.getByRole('link', { name: /^Silenced until / }).waitFor();
    expect(await alert.getByRole('button', { name: /Snooze/ }).count()).to.equal(0);

    await nav.getByRole('link', { name: 'Silences' }).click();
    await page.getByRole('row', { name: /Known outage/ }).waitFor();
    expect(await page.getByRole('button', { name: /Create|Edit|Expire|Delete/ }).count()).to.equal(0);
  });
});
