// Sign in, create account, sign out, reload and an expired session, in a real browser.
import { expect } from 'chai';
import { SignJWT } from 'jose';
import { startDashboard, type DashboardHarness } from '../support/browser.js';

describe('dashboard: session', function () {
  this.timeout(60_000);
  let h: DashboardHarness;
  before(async function () {
    h = await startDashboard(this);
  });
  after(async () => h?.stop());

  it('creates an account, lands signed in, survives a reload and signs out', async () => {
    const { page, errors } = await h.newPage();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Create account' }).click();
    await page.getByLabel('Name').fill('Grace Hopper');
    await page.getByLabel('Email').fill(`grace-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('cobol-forever');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Services', level: 1 }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Services' }).getAttribute('aria-current')).to.equal('page');

    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto('/services');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(errors).to.deep.equal([]);
  });

  it('shows the API error for a wrong password and a short password at the field', async () => {
    const user = await h.controlPlane.api.newUser('wrong-pw');
    const { page } = await h.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: /invalid|incorrect|wrong/i }).waitFor();

    await page.goto('/create-account');
    await page.getByLabel('Name').fill('Short');
    await page.getByLabel('Email').fill(`short-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    const password = page.getByLabel('Password');
    await page.getByText('password must be at least 8 characters', { exact: true }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'Please correct the fields marked below.' }).waitFor();
    expect(await password.getAttribute('aria-invalid')).to.equal('true');
    const describedBy = (await password.getAttribute('aria-describedby')) ?? '';
    const message = await page.locator(`[id="${describedBy.split(' ').pop()}"]`).innerText();
    expect(message).to.match(/8/);
  });

  it('returns to sign-in with a message when the token has expired', async () => {
    const user = await h.controlPlane.api.newUser('expired');
    const expired = await new SignJWT({ user_id: user.userId, tenant_id: user.orgId, email: user.email })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      // Long enough for the page to show the signed-in dashboard first on a loaded CI machine.
      .setExpirationTime(Math.floor(Date.now() / 1000) + 6)
      .sign(new TextEncoder().encode('outpost-test-secret-0123456789abcdefghijklmnop'));
    const { page } = await h.newPage();
    await page.goto('/sign-in');
    const session = JSON.stringify({ token: expired, userId: user.userId, organizationId: user.orgId, email: user.email });
    await page.evaluate(`localStorage.setItem('outpost.session', ${JSON.stringify(session)})`);
    await page.goto('/services');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByText('Your session has expired. Sign in again.').waitFor({ timeout: 15_000 });
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });
});

describe('dashboard: connection state', function () {
  this.timeout(60_000);

  it('says when the live feed is disconnected', async function () {
    const h = await startDashboard(this);
    let stopped = false;
    try {
      const user = await h.controlPlane.api.newUser('disconnect');
      const page = await h.signedInPage(user);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      stopped = true;
      await h.controlPlane.stop();
      await page.getByText('Disconnected, reconnecting…').waitFor();
    } finally {
      if (stopped) await h.browser.close();
      else await h.stop();
    }
  });
});
