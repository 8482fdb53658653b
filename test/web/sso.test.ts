// Single sign-on in Chromium against a real OpenID provider on 127.0.0.1: an admin sets it up
// on the SSO page (callback URL, test connection); a person signs in from the sign-in page by
// e-mail, through the provider's own login and consent pages, and lands signed in on the
// dashboard; a failed sign-in comes back to the sign-in page saying why.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { freeLoopbackPort, startTestIdp, type TestIdp } from '../fixtures/oidc-idp.js';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';

describe('dashboard: single sign-on', function () {
  this.timeout(90_000);
  const domain = `sso-${randomBytes(4).toString('hex')}.test`;
  const slug = `sso-web-${randomBytes(4).toString('hex')}`;
  const secret = `secret-${randomBytes(6).toString('hex')}`;
  let h: DashboardHarness;
  let idp: TestIdp;
  let base: string;
  let owner: TestUser;

  before(async function () {
    const port = await freeLoopbackPort();
    base = `http://127.0.0.1:${port}`;
    h = await startDashboard(this, { env: { PORT: String(port), PUBLIC_URL: base } });
    const api = h.controlPlane.api;
    const email = `owner@${domain}`;
    const password = `pw-${randomBytes(6).toString('hex')}`;
    expect((await api.post('/auth/register', { email, password, full_name: 'Web Owner' })).status).to.equal(201);
    const login = await api.post('/auth/login', { email, password });
    owner = { email, password, token: login.body.token, userId: login.body.user_id, orgId: login.body.org_id };
    expect((await api.put('/organization', { slug }, owner.token)).status).to.equal(200);
    idp = await startTestIdp([{ client_id: 'outpost-web', client_secret: secret, redirect_uris: [`${base}/api/v1/auth/sso/${slug}/callback`] }]);
    idp.accounts.set('ada', { email: `ada@${domain}`, name: 'Ada Lovelace', groups: ['engineers'] });
  });
  after(async () => {
    await h?.stop();
    await idp?.stop();
  });

  it('is set up on the SSO page, with the callback URL to register and a working connection test', async () => {
    const page = await h.signedInPage(owner, '/sso');
    await page.getByRole('heading', { name: 'Single sign-on', level: 1 }).waitFor();
    await page.getByText(`${base}/api/v1/auth/sso/${slug}/callback`).waitFor();
    await page.getByRole('button', { name: 'Copy callback URL' }).waitFor();

    await page.getByLabel('Issuer URL').fill(idp.issuer);
    await page.getByLabel('Client ID').fill('outpost-web');
    await page.getByLabel('Client secret').fill(secret);
    await page.getByLabel('Allowed e-mail domains').fill(domain);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByRole('status').filter({ hasText: 'Connection works' }).waitFor();

    await page.getByRole('button', { name: 'Add a group' }).click();
    await page.getByLabel('Group 1', { exact: true }).fill('engineers');
    await page.getByLabel('Role for group 1').selectOption('member');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

    const saved = await h.controlPlane.api.get('/organization/sso', owner.token);
    expect(saved.body).to.deep.include({ issuer: idp.issuer, client_id: 'outpost-web', allowed_domains: [domain], role_mapping: [{ group: 'engineers', role: 'member' }] });
  });

  it('signs a person in by e-mail through the provider and lands them on the dashboard', async () => {
    const { page, errors } = await h.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Work e-mail or organization').fill(`ada@${domain}`);
    await page.getByRole('button', { name: 'Continue with SSO' }).click();

    // The provider's own pages: its login form, then its consent.
    await page.waitForURL((url) => url.origin === idp.issuer);
    await page.locator('input[name="login"]').fill('ada');
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'Services', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.getByText(`ada@${domain} · member`).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/services');
    expect(page.url()).to.not.include('code=');
    expect(errors).to.deep.equal([]);
  });

  it('comes back to the sign-in page with the reason when the provider\'s answer is refused', async () => {
    idp.accounts.set('mallory', { email: 'mallory@elsewhere.test', groups: ['engineers'] });
    const { page } = await h.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Work e-mail or organization').fill(slug);
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await page.waitForURL((url) => url.origin === idp.issuer);
    await page.locator('input[name="login"]').fill('mallory');
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').filter({ hasText: 'the e-mail domain "elsewhere.test" is not allowed' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
  });

  it('says when no organization uses single sign-on for an e-mail domain', async () => {
    const { page } = await h.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Work e-mail or organization').fill('someone@nowhere.test');
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await page.getByRole('alert').filter({ hasText: 'no organization uses single sign-on' }).waitFor();
  });
});
