// Invitations and password reset in a real browser, with the mails read from an SMTP server on
// 127.0.0.1 and their links followed: an admin invites from the Members page, the invited
// person registers through the link and lands in the inviting organization; someone who
// forgot their password resets it and signs in with the new one.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startSmtpSink, type Mail, type SmtpSink } from '../fixtures/smtp-sink.js';
import { startDashboard, type DashboardHarness } from '../support/browser.js';
import { poll } from '../support/poll.js';

const bodyOf = (mail: Mail) =>
  mail.raw
    .slice(mail.raw.search(/\r?\n\r?\n/))
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe('dashboard: invitations and password reset', function () {
  this.timeout(90_000);
  let h: DashboardHarness;
  let sink: SmtpSink;
  before(async function () {
    sink = await startSmtpSink();
    h = await startDashboard(this, { env: sink.env });
  });
  after(async () => {
    await h?.stop();
    await sink?.close();
  });

  /** The path and query of the dashboard link in the mail to `email` (the links name PUBLIC_URL, not the test's port). */
  async function linkMailedTo(email: string, page: 'accept-invitation' | 'reset-password'): Promise<string> {
    const mail = await poll(() => sink.mails.find((m) => m.to.includes(email)), { what: `a mail to ${email}` });
    const match = new RegExp(`https?://[^\\s/]+(/${page}\\?token=[A-Za-z0-9_-]+)`).exec(bodyOf(mail));
    if (!match) throw new Error(`no ${page} link in: ${bodyOf(mail)}`);
    return match[1]!;
  }

  it('invites from the Members page; the invited person registers through the mailed link and lands in that organization', async () => {
    const owner = await h.controlPlane.api.newUser('web-inviter');
    const organization = (await h.controlPlane.api.get('/organization', owner.token)).body as { id: string; name: string };
    const email = `web-invited-${randomBytes(4).toString('hex')}@example.com`;

    const admin = await h.signedInPage(owner, '/members');
    await admin.getByRole('heading', { name: 'Invitations' }).waitFor();
    await admin.getByRole('button', { name: 'Invite', exact: true }).click();
    const dialog = admin.getByRole('dialog', { name: 'Invite someone' });
    await dialog.getByLabel('Email').fill(email);
    await dialog.getByLabel('Role').selectOption('admin');
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await admin.getByRole('status').filter({ hasText: `Invitation mailed to ${email}.` }).waitFor();
    const row = admin.getByRole('row').filter({ hasText: email });
    await row.getByText('Pending', { exact: true }).waitFor();

    const { page, errors } = await h.newPage();
    await page.goto(await linkMailedTo(email, 'accept-invitation'));
    await page.getByRole('heading', { name: 'Join an organization' }).waitFor();
    await page.getByText(`${organization.name} invites ${email} to join as an admin.`).waitFor();
    await page.getByLabel('Name').fill('Invited Person');
    await page.getByLabel('Password').fill('invited-password');
    await page.getByRole('button', { name: 'Create account and join' }).click();
    await page.getByRole('heading', { name: 'Services', level: 1 }).waitFor();
    await poll(async () => (await page.getByLabel('Organization').inputValue()) === organization.id, { what: 'the invited organization selected' });
    expect(errors).to.deep.equal([]);

    // The newcomer is an admin there, and the inviter's list says the invitation was accepted.
    await page.goto('/members');
    await poll(async () => (await page.getByLabel('Role of Invited Person').inputValue()) === 'admin', { what: "the newcomer's role shown as admin" });
    await admin.reload();
    await admin.getByRole('row').filter({ hasText: email }).getByText('Accepted', { exact: true }).waitFor();

    // The used link now says it no longer works.
    const { page: again } = await h.newPage();
    await again.goto(await linkMailedTo(email, 'accept-invitation'));
    await again.getByRole('alert').filter({ hasText: 'This invitation link does not work' }).waitFor();
  });

  it('revokes an invitation from the Members page, after which its link no longer works', async () => {
    const owner = await h.controlPlane.api.newUser('web-revoker');
    const email = `web-revoked-${randomBytes(4).toString('hex')}@example.com`;
    expect((await h.controlPlane.api.post('/invitations', { email, role: 'viewer' }, owner.token)).status).to.equal(201);

    const admin = await h.signedInPage(owner, '/members');
    const row = admin.getByRole('row').filter({ hasText: email });
    await row.getByText('Pending', { exact: true }).waitFor();
    await row.getByRole('button', { name: `Revoke the invitation of ${email}` }).click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('Revoked', { exact: true }).waitFor();

    const { page } = await h.newPage();
    await page.goto(await linkMailedTo(email, 'accept-invitation'));
    await page.getByRole('alert').filter({ hasText: 'This invitation link does not work' }).waitFor();
  });

  it('resets a forgotten password through the mailed link, then signs in with the new one', async () => {
    const user = await h.controlPlane.api.newUser('web-forgetful');
    const { page, errors } = await h.newPage();
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('status').filter({ hasText: 'If an account has this e-mail address' }).waitFor();

    await page.goto(await linkMailedTo(user.email, 'reset-password'));
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill('the-new-password');
    await page.getByLabel('Repeat the new password').fill('not-the-same');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('The two passwords differ.').waitFor();
    await page.getByLabel('Repeat the new password').fill('the-new-password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password is changed' }).waitFor();

    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('the-new-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Services', level: 1 }).waitFor();
    expect((await h.controlPlane.api.post('/auth/login', { email: user.email, password: user.password })).status).to.equal(401);
    expect(errors).to.deep.equal([]);
  });
});
