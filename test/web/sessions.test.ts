// Sessions and scoped API keys in a real browser (issue 43): a person sees where they are
// signed in and signs another device out, which that device notices on its next request; a
// key made with scopes and an expiry shows them and is held to them.
import { expect } from 'chai';
import { startDashboard, type DashboardHarness } from '../support/browser.js';

describe('dashboard: sessions and scoped API keys', function () {
  this.timeout(90_000);
  let h: DashboardHarness;

  before(async function () {
    h = await startDashboard(this);
  });
  after(async () => {
    await h?.stop();
  });

  it('lists the sessions and signs another one out, which then returns to sign-in', async () => {
    const user = await h.controlPlane.api.newUser('web-sessions');
    const phone = await h.signedInPage(user, '/services');
    const laptop = await h.signedInPage(user, '/sessions');

    await laptop.getByText('This session').waitFor();
    // The API's own login (newUser) and the two pages.
    const others = laptop.getByRole('button', { name: /^Sign out the session on / });
    await others.first().waitFor();
    expect(await others.count()).to.equal(2);

    await laptop.getByRole('button', { name: 'Sign out other sessions' }).click();
    await laptop.getByRole('dialog').getByRole('button', { name: 'Sign out other sessions' }).click();
    await others.first().waitFor({ state: 'detached' });

    await phone.getByRole('link', { name: 'Alerts' }).click();
    await phone.getByText('Your session has ended. Sign in again.').waitFor();
    await phone.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The laptop is still signed in.
    await laptop.reload();
    await laptop.getByText('This session').waitFor();
  });

  it('creates an API key with scopes and an expiry, and the key is held to its scopes', async () => {
    const owner = await h.controlPlane.api.newUser('web-scoped-key');
    const page = await h.signedInPage(owner, '/api-keys');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const form = page.getByRole('dialog', { name: 'Create API key' });
    await form.getByLabel('Name').fill('status reader');
    await form.getByLabel('Access').selectOption({ label: 'Only the scopes chosen below' });
    await form.getByLabel('services:read', { exact: true }).check();
    await form.getByLabel('Expires').selectOption({ label: 'In 7 days' });
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    const shown = page.getByRole('dialog', { name: 'API key status reader created' });
    const key = await shown.getByLabel('API key').inputValue();
    await shown.getByRole('button', { name: 'Done' }).click();

    const row = page.getByRole('row').filter({ hasText: 'status reader' });
    await row.getByText('services:read').waitFor();
    expect(await row.getByRole('cell').nth(5).innerText()).not.to.equal('Never');

    expect((await h.controlPlane.api.get('/services', key)).status).to.equal(200);
    const write = await h.controlPlane.api.post('/services', { name: 'x', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, key);
    expect(write.status).to.equal(403);
    expect(write.body.error).to.equal('this API key lacks the "services:write" scope');
  });
});
