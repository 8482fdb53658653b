// Alerting pages in a real browser: a webhook channel and its test message, an alert rule, an
// alert that fires live and is acknowledged and resolved, a heartbeat's ping URL, and what a
// viewer does not see. The embedded agent checks a service pointed at a closed port.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';

/** The message shown under a field: the last element its aria-describedby names. */
async function fieldError(page: Page, label: string): Promise<string> {
  const field = page.getByLabel(label, { exact: true });
  await page.getByLabel(label, { exact: true }).and(page.locator('[aria-invalid="true"]')).waitFor({ timeout: 10_000 });
  const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
  return page.locator(`[id="${describedBy.split(' ').pop()}"]`).innerText();
}

describe('dashboard: alerting', function () {
  this.timeout(90_000);
  let h: DashboardHarness;
  let receiver: HttpReceiver;
  let owner: TestUser;
  let serviceId: string;

  before(async function () {
    h = await startDashboard(this, { embeddedAgent: true });
    receiver = await startHttpReceiver();
    owner = await h.controlPlane.api.newUser('alerting-owner');
  });
  after(async () => {
    await h?.stop();
    await receiver?.close();
  });

  it('creates a webhook channel, shows an invalid URL at its field, and "Send test" reaches the receiver', async () => {
    const page = await h.signedInPage(owner, '/channels');
    await page.getByText('No notification channel yet').waitFor();
    await page.getByRole('button', { name: 'Create channel' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create notification channel' });
    await dialog.getByLabel('Name').fill('Ops hook');
    await dialog.getByLabel('Type').selectOption('webhook');
    await dialog.getByLabel('URL', { exact: true }).fill('not a url');
    await dialog.getByRole('button', { name: 'Create channel' }).click();
    expect(await fieldError(page, 'URL')).to.match(/url must be a URL/);

    await dialog.getByLabel('URL', { exact: true }).fill(`${receiver.url}/ui-test`);
    await dialog.getByRole('button', { name: 'Create channel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Ops hook/ });
    await row.getByRole('cell', { name: 'Webhook' }).waitFor();

    await row.getByRole('button', { name: 'Send test' }).click();
    await row.getByText('Test message sent').waitFor();
    const request = await receiver.waitFor((r) => r.url === '/ui-test', 'the test message');
    expect(request.json?.event).to.equal('test');
  });

  it('creates a Telegram chat channel showing only its fields, with a missing key at its field, and edits it keeping the masked token', async () => {
    const page = await h.signedInPage(owner, '/channels');
    await page.getByRole('button', { name: 'Create channel' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create notification channel' });
    await dialog.getByLabel('Name').fill('Ops Telegram');
    await dialog.getByLabel('Type').selectOption('chat');
    await dialog.getByLabel('Webhook URL').waitFor();
    await dialog.getByLabel('Provider').selectOption('telegram');
    expect(await dialog.getByLabel('Webhook URL').count()).to.equal(0);
    await dialog.getByLabel('Bot token').fill('123456:ui-bot-token');
    await dialog.getByLabel('API URL').fill(`${receiver.url}/tg-ui`);
    await dialog.getByRole('button', { name: 'Create channel' }).click();
    expect(await fieldError(page, 'Chat ID')).to.match(/chat_id must be a numeric chat id/);
    await dialog.getByLabel('Chat ID').fill('-100123');
    await dialog.getByRole('button', { name: 'Create channel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Ops Telegram/ });
    await row.getByRole('cell', { name: 'Telegram: chat -100123' }).waitFor();

    await row.getByRole('button', { name: 'Edit Ops Telegram' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Ops Telegram' });
    expect(await edit.getByLabel('Bot token').inputValue()).to.equal('****oken');
    await edit.getByLabel('Chat ID').fill('@ops_room');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });
    await row.getByRole('button', { name: 'Send test' }).click();
    const request = await receiver.waitFor((r) => r.url === '/tg-ui/bot123456:ui-bot-token/sendMessage', 'the Telegram test message');
    expect(request.json).to.include({ chat_id: '@ops_room', parse_mode: 'HTML' });
  });

  it('creates and edits an alert rule, with the API error at its field', async () => {
    const page = await h.signedInPage(owner, '/alert-rules');
    await page.getByText('No alert rule yet').waitFor();
    await page.getByRole('button', { name: 'Create rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create alert rule' });
    await dialog.getByLabel('Name').fill('Anything down');
    expect(await dialog.getByLabel('Service', { exact: true }).inputValue()).to.equal('');
    await dialog.getByLabel('Severity').selectOption('critical');
    await dialog.getByRole('checkbox', { name: 'Ops hook' }).check();
    await dialog.getByLabel('Consecutive failures').fill('0');
    await dialog.getByRole('button', { name: 'Create rule' }).click();
    expect(await fieldError(page, 'Consecutive failures')).to.match(/consecutive_failures/);

    await dialog.getByLabel('Consecutive failures').fill('1');
    await dialog.getByRole('button', { name: 'Create rule' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Anything down/ });
    await row.getByRole('cell', { name: 'All services' }).waitFor();
    await row.getByRole('cell', { name: 'Ops hook' }).waitFor();

    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Anything down' });
    await edit.getByLabel('Severity').selectOption('warning');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });
    await row.getByRole('cell', { name: 'warning' }).waitFor();
  });

  it('shows an alert as it fires, acknowledges and resolves it with who did it, and lists its deliveries', async () => {
    const page = await h.signedInPage(owner, '/alerts');
    await page.getByText('No alert is firing').waitFor();
    const created = await h.controlPlane.api.post('/services', { name: 'Checkout', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 300 }, owner.token);
    expect(created.status, created.text).to.equal(201);
    serviceId = created.body.id;

    const alert = page.getByRole('article', { name: 'Checkout is RED' });
    await alert.waitFor({ timeout: 20_000 });
    await alert.getByText('Firing', { exact: true }).waitFor();
    expect(await alert.getByRole('link', { name: 'Checkout' }).getAttribute('href')).to.equal(`/services/${serviceId}`);

    await alert.getByRole('button', { name: 'Show deliveries' }).click();
    const deliveries = alert.getByRole('table', { name: 'Deliveries' });
    await deliveries.getByRole('row', { name: /Ops hook.*Fired/ }).waitFor();

    await alert.getByRole('button', { name: 'Acknowledge' }).click();
    await alert.waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: 'Acknowledged' }).click();
    const acknowledged = page.getByRole('article', { name: 'Checkout is RED' });
    await acknowledged.getByText('Acknowledged', { exact: true }).waitFor();
    await acknowledged.getByText(`by Test alerting-owner (${owner.email})`).waitFor();
    expect(await acknowledged.getByRole('button', { name: 'Acknowledge' }).count()).to.equal(0);

    await acknowledged.getByRole('button', { name: 'Resolve' }).click();
    await acknowledged.waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: 'Resolved' }).click();
    const resolved = page.getByRole('article', { name: 'Checkout is RED' });
    await resolved.getByText('Resolved', { exact: true }).waitFor();
    expect(await resolved.getByText(`by Test alerting-owner (${owner.email})`).count()).to.equal(2);
    expect(await resolved.getByRole('button', { name: /Acknowledge|Resolve/ }).count()).to.equal(0);
  });

  it('creates a heartbeat and shows its full ping URL to copy', async () => {
    const page = await h.signedInPage(owner, '/heartbeats');
    await page.getByText('No heartbeat yet').waitFor();
    await page.getByRole('button', { name: 'Create heartbeat' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create heartbeat' });
    await dialog.getByLabel('Name').fill('Nightly backup');
    await dialog.getByLabel('Interval (seconds)').fill('86400');
    await dialog.getByRole('button', { name: 'Create heartbeat' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Nightly backup/ });
    await row.getByText('PENDING').waitFor();
    const url = await row.locator('code').first().innerText();
    expect(url).to.match(new RegExp(`^${h.controlPlane.baseUrl}/api/v1/heartbeat/[A-Za-z0-9_-]+$`));
    await row.getByRole('button', { name: 'Copy ping URL' }).waitFor();
    expect((await fetch(url)).status).to.equal(200);
  });

  it('creates a cron heartbeat with its time zone, showing a bad expression at its field and when the next ping is expected', async () => {
    const page = await h.signedInPage(owner, '/heartbeats');
    await page.getByRole('row', { name: /Nightly backup/ }).waitFor();
    await page.getByRole('button', { name: 'Create heartbeat' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create heartbeat' });
    await dialog.getByLabel('Name').fill('Weekly report');
    await dialog.getByRole('radio', { name: 'Cron schedule' }).check();
    await dialog.getByLabel('Cron expression').fill('0 25 * * MON');
    await dialog.getByLabel('Time zone').selectOption('America/New_York');
    await dialog.getByLabel('Max runtime (seconds)').fill('600');
    await dialog.getByRole('button', { name: 'Create heartbeat' }).click();
    expect(await fieldError(page, 'Cron expression')).to.match(/not a valid cron expression: .*hour/);

    await dialog.getByLabel('Cron expression').fill('0 9 * * MON');
    await dialog.getByRole('button', { name: 'Create heartbeat' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.getByRole('row', { name: /Weekly report/ });
    await row.getByText('0 9 * * MON (America/New_York), runs at most 10 min').waitFor();
    const next = row.locator('td time').last();
    const expectedAt = new Date((await next.getAttribute('datetime'))!);
    expect(expectedAt.getUTCDay(), 'a Monday').to.equal(1);
    expect(expectedAt.getUTCHours(), '09:00 New York').to.be.oneOf([13, 14]);
    // Relative, then absolute: "in 6 days (Nov 30, 2026, 9:00:00 AM)".
    expect(await next.innerText()).to.match(/^\S.* \(.+\)$/);

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: /Delete heartbeat "Weekly report"/ }).getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
  });

  it('creates an escalation policy with two steps and a maintenance window, and deletes them and a channel', async () => {
    const page = await h.signedInPage(owner, '/escalation-policies');
    await page.getByRole('button', { name: 'Create policy' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create escalation policy' });
    await dialog.getByLabel('Name').fill('Night shift');
    await dialog.getByRole('group', { name: 'Step 1' }).getByRole('checkbox', { name: 'Ops hook' }).check();
    await dialog.getByRole('button', { name: 'Add step' }).click();
    await dialog.getByRole('button', { name: 'Create policy' }).click();
    // Step 2 notifies nobody: the API names it, and the message stands in that step.
    await dialog.getByRole('group', { name: 'Step 2' }).getByText('a step notifies at least one channel or team').waitFor();
    await dialog.getByRole('group', { name: 'Step 2' }).getByRole('checkbox', { name: 'Ops hook' }).check();
    await dialog.getByLabel('Repeat').selectOption('2');
    await dialog.getByRole('button', { name: 'Create policy' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const policy = page.getByRole('row', { name: /Night shift/ });
    await policy.getByText('After 15 min: Ops hook').waitFor();
    await policy.getByRole('cell', { name: '2 more rounds' }).waitFor();
    await policy.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: /Delete policy "Night shift"/ }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No escalation policy yet').waitFor();

    await page.goto('/maintenance');
    await page.getByRole('button', { name: 'Create window' }).click();
    const form = page.getByRole('dialog', { name: 'Create maintenance window' });
    await form.getByLabel('Name').fill('DB upgrade');
    await form.getByLabel('Starts').fill('2031-05-04T10:00');
    await form.getByLabel('Ends').fill('2031-05-04T12:30');
    await form.getByRole('checkbox', { name: 'Checkout' }).check();
    await form.getByRole('button', { name: 'Create window' }).click();
    await form.waitFor({ state: 'hidden' });
    const scheduled = page.getByRole('row', { name: /DB upgrade/ });
    await scheduled.getByRole('cell', { name: 'Scheduled' }).waitFor();
    const [stored] = (await h.controlPlane.api.get('/maintenance-windows', owner.token)).body;
    const offsetMs = await page.evaluate(() => new Date('2031-05-04T10:00').getTime() - Date.parse('2031-05-04T10:00Z'));
    expect(Date.parse(stored.starts_at)).to.equal(Date.parse('2031-05-04T10:00Z') + offsetMs);
    expect(stored.service_ids).to.deep.equal([serviceId]);
    await scheduled.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: /Delete window/ }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No maintenance window').waitFor();

    await h.controlPlane.api.post('/notification-channels', { name: 'Spare', channel_type: 'email', config: { to: 'spare@example.com' } }, owner.token);
    await page.goto('/channels');
    const spare = page.getByRole('row', { name: /Spare/ });
    await spare.getByRole('cell', { name: 'spare@example.com' }).waitFor();
    await spare.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: /Delete channel "Spare"/ }).getByRole('button', { name: 'Delete' }).click();
    await spare.waitFor({ state: 'detached' });
  });

  it('shows a viewer the data without acknowledge, create, edit or delete buttons', async () => {
    const viewer = await h.controlPlane.api.newUser('alerting-viewer');
    const added = await h.controlPlane.api.post('/members', { email: viewer.email, role: 'viewer' }, owner.token);
    expect(added.status, added.text).to.equal(201);
    // A new RED result opens a new firing alert, the one a member could acknowledge.
    await h.controlPlane.api.post(`/services/${serviceId}/check`, {}, owner.token);

    const page = await h.signedInPage(viewer);
    await page.getByLabel('Organization').selectOption(owner.orgId);
    await page.getByText('· viewer').waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });

    await nav.getByRole('link', { name: 'Alerts' }).click();
    const alert = page.getByRole('article', { name: 'Checkout is RED' });
    await alert.getByText('Firing', { exact: true }).waitFor({ timeout: 20_000 });
    expect(await alert.getByRole('button', { name: /Acknowledge|Resolve/ }).count()).to.equal(0);
    await alert.getByRole('button', { name: 'Show deliveries' }).waitFor();

    await nav.getByRole('link', { name: 'Notification channels' }).click();
    await page.getByRole('row', { name: /Ops hook/ }).waitFor();
    expect(await page.getByRole('button', { name: /Create|Edit|Delete|Send test/ }).count()).to.equal(0);

    await nav.getByRole('link', { name: 'Alert rules' }).click();
    await page.getByRole('row', { name: /Anything down/ }).waitFor();
    expect(await page.getByRole('button', { name: /Create|Edit|Delete/ }).count()).to.equal(0);

    await nav.getByRole('link', { name: 'Heartbeats' }).click();
    await page.getByRole('row', { name: /Nightly backup/ }).waitFor();
    expect(await page.getByRole('button', { name: /Create|Edit|Delete/ }).count()).to.equal(0);
    await page.getByRole('button', { name: 'Copy ping URL' }).waitFor();
  });
});
