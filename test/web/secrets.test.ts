// The Secrets settings page in a real browser: create a secret, change its value, see what
// uses it, be refused its deletion while a check uses it (the API's 409 said in the dialog),
// then delete it. A value is never shown back.
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';

describe('dashboard: secrets', function () {
  this.timeout(60_000);
  let h: DashboardHarness;
  let owner: TestUser;

  before(async function () {
    h = await startDashboard(this);
    owner = await h.controlPlane.api.newUser('secrets-owner');
  });
  after(() => h?.stop());

  it('creates a secret and changes its value without showing it, refuses to delete it while a check uses it, then deletes it', async () => {
    const page = await h.signedInPage(owner);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Secrets' }).click();
    await page.getByRole('heading', { name: 'Secrets', level: 1 }).waitFor();
    await page.getByText('No secrets yet.').waitFor();

    await page.getByRole('button', { name: 'Create secret' }).click();
    const create = page.getByRole('dialog', { name: 'Create secret' });
    await create.getByLabel('Name').fill('SHOP_TOKEN');
    await create.getByLabel('Value').fill('first-value-123');
    await create.getByRole('button', { name: 'Create' }).click();
    const row = page.getByRole('row').filter({ hasText: 'SHOP_TOKEN' });
    await row.waitFor();
    await row.getByText('Nothing').waitFor();

    const [secret] = (await h.controlPlane.api.get('/secrets', owner.token)).body as { id: string; name: string; updated_at: string }[];
    expect(secret).to.include({ name: 'SHOP_TOKEN' });
    expect(secret).to.not.have.property('value');

    await row.getByRole('button', { name: 'Change the value of SHOP_TOKEN' }).click();
    const change = page.getByRole('dialog', { name: 'Change the value of SHOP_TOKEN' });
    await change.getByLabel('New value').fill('second-value-456');
    await change.getByRole('button', { name: 'Change value' }).click();
    await change.waitFor({ state: 'hidden' });
    const [changed] = (await h.controlPlane.api.get('/secrets', owner.token)).body as { updated_at: string }[];
    expect(new Date(changed!.updated_at).getTime()).to.be.above(new Date(secret!.updated_at).getTime());

    const used = await h.controlPlane.api.post(
      '/services',
      {
        name: 'shop login',
        check_type: 'MULTISTEP',
        endpoint: 'https://shop.example',
        locations: ['far-away'],
        options: { steps: [{ name: 'basket', url: '/basket', headers: { authorization: 'Bearer {{secrets.SHOP_TOKEN}}' } }] },
      },
      owner.token,
    );
    expect(used.status, used.text).to.equal(201);
    await page.reload();
    await row.getByRole('link', { name: 'shop login' }).waitFor();

    await row.getByRole('button', { name: 'Delete secret "SHOP_TOKEN"' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete secret "SHOP_TOKEN"?' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    expect(await confirm.getByRole('alert').innerText()).to.contain('shop login');
    await confirm.getByRole('button', { name: 'Cancel' }).click();

    expect((await h.controlPlane.api.del(`/services/${used.body.id}`, owner.token)).status).to.equal(204);
    await row.getByRole('button', { name: 'Delete secret "SHOP_TOKEN"' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No secrets yet.').waitFor();
    for (const value of ['first-value-123', 'second-value-456']) expect(await page.content(), 'a value is never in the page').to.not.contain(value);
  });

  it('shows a member the names without the buttons that change them', async () => {
    expect((await h.controlPlane.api.post('/secrets', { name: 'READ_ONLY', value: 'hidden' }, owner.token)).status).to.equal(201);
    const member = await h.controlPlane.api.newUser('secrets-member');
    const added = await h.controlPlane.api.post('/members', { email: member.email, role: 'member' }, owner.token);
    expect(added.status, added.text).to.be.oneOf([200, 201]);

    const page = await h.signedInPage(member);
    await page.getByLabel('Organization').selectOption(owner.orgId);
    await page.getByText('· member').waitFor();
    await page.goto('/secrets');
    // The role known before the buttons are counted, so that none means "not offered", not "not yet".
    await page.getByText('· member').waitFor();
    await page.getByRole('row').filter({ hasText: 'READ_ONLY' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create secret' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: /Delete|Change the value/ }).count()).to.equal(0);
  });
});
