// A channel's message template in a real browser: write one, preview it with the sample alert,
// see the engine's message for a broken one, and save it.
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';

describe('dashboard: channel templates', function () {
  this.timeout(60_000);
  let h: DashboardHarness;
  let owner: TestUser;

  before(async function () {
    h = await startDashboard(this, { env: { PUBLIC_URL: 'https://outpost.example.com' } });
    owner = await h.controlPlane.api.newUser('templates-owner');
  });
  after(() => h?.stop());

  it("edits a chat channel's template, previews it, is told what is wrong with a broken one, and saves it", async () => {
    const created = await h.controlPlane.api.post('/notification-channels', { name: 'ops room', channel_type: 'chat', config: { webhook_url: 'https://hooks.example.com/ops' } }, owner.token);
    expect(created.status, created.text).to.equal(201);

    const page = await h.signedInPage(owner, '/channels');
    await page.getByRole('heading', { name: 'Notification channels', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Edit ops room' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit ops room' });
    const template = dialog.getByLabel('Template', { exact: true });

    await dialog.getByRole('button', { name: 'Preview' }).click();
    const preview = dialog.getByRole('region', { name: 'Preview' });
    await preview.getByText('[FIRING] [CRITICAL] checkout-api is RED: HTTP 503').waitFor();

    await template.fill('{{ alert.title }} for {{ alert.firing_for }}: {{ links.service | shout }}');
    expect(await preview.count(), 'an edit clears the old preview').to.equal(0);
    await dialog.getByRole('button', { name: 'Preview' }).click();
    expect(await dialog.getByRole('alert').innerText()).to.match(/undefined filter: shout/);

    await template.fill('{{ alert.title }} for {{ alert.firing_for }}: {{ links.service }}');
    await dialog.getByRole('button', { name: 'Preview' }).click();
    const text = await preview.locator('pre').innerText();
    expect(text).to.match(/^checkout-api is RED for 12 min: https:\/\/outpost\.example\.com\/services\/[0-9a-f-]{36}$/);

    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const [saved] = (await h.controlPlane.api.get('/notification-channels', owner.token)).body;
    expect(saved.config).to.deep.equal({ webhook_url: 'https://hooks.example.com/ops', template: '{{ alert.title }} for {{ alert.firing_for }}: {{ links.service }}' });

    await page.getByRole('button', { name: 'Edit ops room' }).click();
    expect(await dialog.getByLabel('Template', { exact: true }).inputValue()).to.equal('{{ alert.title }} for {{ alert.firing_for }}: {{ links.service }}');
  });

  it('shows an e-mail channel a subject and a body template, and refuses a broken subject under its field', async () => {
    const page = await h.signedInPage(owner, '/channels');
    await page.getByRole('button', { name: 'Create channel' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create notification channel' });
    await dialog.getByLabel('Name').fill('on-call mail');
    await dialog.getByLabel('Type').selectOption('email');
    await dialog.getByLabel('To (email address)').fill('oncall@example.com');
    await dialog.getByLabel('Subject template').fill('{{ service.name }} {{ event | nope }}');
    await dialog.getByLabel('Body template').fill('{{ alert.message }}');
    await dialog.getByRole('button', { name: 'Create channel' }).click();
    await dialog.getByText(/undefined filter: nope/).waitFor();
    expect(await dialog.getByLabel('Subject template').getAttribute('aria-invalid')).to.equal('true');

    await dialog.getByLabel('Subject template').fill('{{ service.name }} is down');
    await dialog.getByRole('button', { name: 'Preview' }).click();
    const preview = dialog.getByRole('region', { name: 'Preview' });
    await preview.getByText('checkout-api is down').waitFor();
    expect(await preview.locator('pre').innerText()).to.equal('HTTP 503 Service Unavailable from https://checkout.example.com/health');
    await dialog.getByRole('button', { name: 'Create channel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const mail = (await h.controlPlane.api.get('/notification-channels', owner.token)).body.find((c: { name: string }) => c.name === 'on-call mail');
    expect(mail.config.template).to.deep.equal({ subject: '{{ service.name }} is down', body: '{{ alert.message }}' });
  });
});
