// Second factors in a real Chromium with a virtual authenticator (the DevTools protocol's
// WebAuthn domain: CTAP2, built in, resident keys, user verification that succeeds). The
// dashboard is opened as http://localhost:PORT, since WebAuthn refuses IP addresses as RP ID.
import { expect } from 'chai';
import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import type { TestUser } from '../support/api-client.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';
import { sql } from '../support/sql.js';

describe('dashboard: second factors', function () {
  this.timeout(90_000);
  let h: DashboardHarness;
  let localUrl: string;
  const contexts: BrowserContext[] = [];

  before(async function () {
    h = await startDashboard(this);
    localUrl = h.controlPlane.baseUrl.replace('127.0.0.1', 'localhost');
  });
  after(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await h?.stop();
  });

  /** A page on http://localhost with a virtual authenticator of its own. */
  async function pageWithAuthenticator(): Promise<{ page: Page; cdp: CDPSession; authenticatorId: string; errors: string[] }> {
    const context = await h.browser.newContext({ baseURL: localUrl, viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    return { page, cdp, authenticatorId, errors };
  }

  async function signInWithPassword(page: Page, user: TestUser): Promise<void> {
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function addPasskey(page: Page, name: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security' }).click();
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    await page.getByText('No passkeys yet.').waitFor();
    await page.getByRole('button', { name: 'Add passkey' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add passkey' });
    await dialog.getByLabel('Passkey name').fill(name);
    await dialog.getByRole('button', { name: 'Create passkey' }).click();
    await page.getByRole('row').filter({ hasText: name }).waitFor();
  }

  const signOut = async (page: Page) => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  };
  /** Signed in again: back on the page signed out from. */
  const backOn = (page: Page, title: string) => page.getByRole('heading', { name: title, level: 1 }).waitFor();

  it('registers a passkey on the Security page, renames it, and signs in with it alone after signing out', async () => {
    const user = await h.controlPlane.api.newUser('passkey-alone');
    const { page, cdp, authenticatorId, errors } = await pageWithAuthenticator();
    await signInWithPassword(page, user);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await addPasskey(page, 'Test laptop');

    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).to.have.length(1);
    expect(credentials[0]!.isResidentCredential).to.equal(true);
    expect(credentials[0]!.rpId).to.equal('localhost');
    const [stored] = (await h.controlPlane.api.get('/profile/mfa/passkeys', user.token)).body as { id: string; name: string }[];
    expect(stored).to.include({ name: 'Test laptop' });

    await page.getByRole('button', { name: 'Rename passkey Test laptop' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename passkey Test laptop' });
    await rename.getByLabel('Passkey name').fill('Work laptop');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('row').filter({ hasText: 'Work laptop' }).waitFor();

    await signOut(page);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await backOn(page, 'Security');
    await page.getByText(user.email).waitFor();
    const sessions = await sql<{ method: string }>('select method from sessions where user_id = $1 order by created_at desc limit 1', [user.userId]);
    expect(sessions[0]!.method).to.equal('passkey');
    const used = (await h.controlPlane.api.get('/profile/mfa/passkeys', user.token)).body as { last_used_at: string | null }[];
    expect(used[0]!.last_used_at).to.be.a('string');
    expect(errors).to.deep.equal([]);
  });

  it('asks for the passkey after the password, and removes it after the password is given again', async () => {
    const user = await h.controlPlane.api.newUser('passkey-second');
    const { page } = await pageWithAuthenticator();
    await signInWithPassword(page, user);
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await addPasskey(page, 'Security key');
    await signOut(page);

    await signInWithPassword(page, user);
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await backOn(page, 'Security');
    const [session] = await sql<{ method: string }>('select method from sessions where user_id = $1 order by created_at desc limit 1', [user.userId]);
    expect(session!.method).to.equal('password');

    await page.goto('/security');
    await page.getByRole('button', { name: 'Remove passkey Security key' }).click();
    const proof = page.getByRole('dialog', { name: 'Remove passkey Security key' });
    await proof.getByLabel('Password').fill('not-the-password');
    await proof.getByRole('button', { name: 'Remove passkey' }).click();
    await proof.getByRole('alert').filter({ hasText: 'wrong' }).waitFor();
    await proof.getByLabel('Password').fill(user.password);
    await proof.getByRole('button', { name: 'Remove passkey' }).click();
    await page.getByText('No passkeys yet.').waitFor();

    await signOut(page);
    await signInWithPassword(page, user);
    await backOn(page, 'Security');
  });

  it('sets up the authenticator app with its QR code, shows the recovery codes once, and takes one at sign-in', async () => {
    const user = await h.controlPlane.api.newUser('totp-ui');
    const page = await h.signedInPage(user, '/security');
    await page.getByRole('heading', { name: 'Security', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Set up authenticator app' }).click();
    const setup = page.getByRole('dialog', { name: 'Set up authenticator app' });
    await setup.getByRole('img', { name: 'QR code for the authenticator app' }).waitFor();
    const secret = await setup.getByLabel('Secret key').inputValue();
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    const codeAt = (at: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at });
    await setup.getByLabel('Code from the app').fill(codeAt(Date.now() + 10 * 30_000));
    await setup.getByRole('button', { name: 'Turn on' }).click();
    await setup.getByRole('alert').waitFor();
    await setup.getByLabel('Code from the app').fill(codeAt(Date.now()));
    await setup.getByRole('button', { name: 'Turn on' }).click();

    const codes = page.getByRole('dialog', { name: 'Recovery codes' });
    const list = codes.getByRole('list', { name: 'Recovery codes' });
    await list.waitFor();
    const shown = (await list.getByRole('listitem').allInnerTexts()).map((c) => c.trim());
    expect(shown).to.have.length(10);
    await codes.getByRole('button', { name: 'Copy recovery codes' }).waitFor();
    const download = page.waitForEvent('download');
    await codes.getByRole('button', { name: 'Download recovery codes' }).click();
    expect((await download).suggestedFilename()).to.equal('outpost-recovery-codes.txt');
    await codes.getByRole('button', { name: 'Done' }).click();
    await page.getByText('10 of 10 recovery codes left.').waitFor();

    await signOut(page);
    await signInWithPassword(page, user);
    await page.getByLabel('Authentication code').waitFor();
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(shown[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await backOn(page, 'Security');
    await page.goto('/security');
    await page.getByText('9 of 10 recovery codes left.').waitFor();
  });

  it('lets an admin require a second factor of every member', async () => {
    const owner = await h.controlPlane.api.newUser('policy-ui');
    const page = await h.signedInPage(owner, '/security');
    const box = page.getByLabel('Require a second factor of every member');
    await box.check();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await h.controlPlane.api.get('/organization/security', owner.token)).body).to.deep.equal({ require_mfa: true });

    await signOut(page);
    await signInWithPassword(page, owner);
    await page.getByRole('heading', { name: 'Set up a second factor' }).waitFor();
    await page.getByRole('button', { name: 'Set up authenticator app' }).click();
    const secret = await page.getByLabel('Secret key').inputValue();
    await page.getByLabel('Code from the app').fill(TOTP.generate({ secret: Secret.fromBase32(secret) }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('list', { name: 'Recovery codes' }).waitFor();
    await page.getByRole('button', { name: 'Continue' }).click();
    await backOn(page, 'Security');
  });
});
