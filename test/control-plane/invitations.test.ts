// Invitations against a real SMTP server on 127.0.0.1: the mails are read and their links
// followed (preview, accept as a new person or with an existing account), with a clock the
// test moves for expiry. A second control plane without SMTP settings hands the link back.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { MovableClock } from '../support/movable-clock.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { startSmtpSink, type Mail, type SmtpSink } from '../fixtures/smtp-sink.js';

const address = (label: string) => `${label}-${randomBytes(5).toString('hex')}@example.com`;
const DAY_MS = 86_400_000;

/** The body of a mail as text: quoted-printable undone. */
const bodyOf = (mail: Mail) =>
  mail.raw
    .slice(mail.raw.search(/\r?\n\r?\n/))
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
const subjectOf = (mail: Mail) => /^Subject: (.*)$/im.exec(mail.raw.slice(0, mail.raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, ' '))?.[1]?.trim() ?? '';

describe('invitations', () => {
  let cp: TestControlPlane;
  let smtp: SmtpSink;
  const clock = new MovableClock();

  before(async () => {
    smtp = await startSmtpSink();
    cp = await startTestControlPlane({ env: smtp.env, start: { clock } });
  });
  after(async () => {
    await cp?.stop();
    await smtp?.close();
  });

  const invite = (by: string, email: string, role = 'member') => cp.api.post('/invitations', { email, role }, by);
  /** The token of the invitation link mailed to `email` (the `count`th mail to it). */
  async function mailedToken(email: string, count = 1): Promise<string> {
    const mails = await poll(() => {
      const found = smtp.mails.filter((m) => m.to.includes(email));
      return found.length >= count && found;
    }, { what: `${count} invitation mail(s) to ${email}` });
    const mail = mails[count - 1]!;
    const link = /https?:\/\/\S+\/accept-invitation\?token=([A-Za-z0-9_-]+)/.exec(bodyOf(mail));
    if (!link) throw new Error(`no invitation link in: ${bodyOf(mail)}`);
    return link[1]!;
  }
  const preview = (token: string) => cp.api.get(`/invitations/preview?token=${encodeURIComponent(token)}`);
  const accept = (body: Record<string, unknown>) => cp.api.post('/auth/invitations/accept', body);
  const membersOf = async (user: TestUser) => (await cp.api.get('/members', user.token)).body as { user_id: string; email: string; full_name: string; role: string }[];
  const listOf = async (user: TestUser) => {
    const list = await cp.api.get('/invitations', user.token);
    expect(list.status, list.text).to.equal(200);
    return list.body as { id: string; email: string; role: string; status: string; invited_by: { user_id: string; email: string } | null; email_sent: boolean }[];
  };

  describe('inviting someone without an account', () => {
    it('mails a link that previews the invitation and registers the person into the organization with the role', async () => {
      const owner = await cp.api.newUser('inviter');
      const email = address('newcomer');
      const created = await invite(owner.token, email, 'admin');
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ email, role: 'admin', status: 'pending', email_sent: true });
      expect(created.body).to.not.have.property('accept_url');
      expect(created.body.invited_by).to.deep.include({ user_id: owner.userId, email: owner.email });
      expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).to.equal(7 * DAY_MS);

      const mail = smtp.mails.find((m) => m.to.includes(email))!;
      const organization = (await cp.api.get('/organization', owner.token)).body as { id: string; name: string };
      expect(subjectOf(mail)).to.include(organization.name);
      expect(bodyOf(mail)).to.include('as an admin');
      const token = await mailedToken(email);
      const stored = await sql<{ token_hash: string }>('select token_hash from invitations where id = $1', [created.body.id]);
      expect(stored[0]!.token_hash).to.not.include(token);

      const seen = await preview(token);
      expect(seen.status, seen.text).to.equal(200);
      expect(seen.headers.get('cache-control')).to.equal('no-store');
      expect(seen.body).to.deep.equal({ organization_name: organization.name, email, role: 'admin', account_exists: false, expires_at: created.body.expires_at });

      const needsName = await accept({ token, password: 'a-new-password' });
      expect(needsName.status).to.equal(400);
      expect(needsName.body.error).to.include('full_name');
      const short = await accept({ token, password: 'short', full_name: 'New Comer' });
      expect(short.status).to.equal(400);
      expect(short.body.error).to.include('password');

      const joined = await accept({ token, password: 'a-new-password', full_name: 'New Comer' });
      expect(joined.status, joined.text).to.equal(200);
      expect(joined.body.org_id).to.equal(organization.id);
      expect(joined.body).to.have.keys('token', 'user_id', 'org_id', 'session_id', 'refresh_token', 'expires_at');
      const asNewcomer = await cp.api.get('/organization', joined.body.token);
      expect(asNewcomer.status).to.equal(200);
      expect(asNewcomer.body).to.include({ id: organization.id, role: 'admin' });
      expect((await membersOf(owner)).find((m) => m.email === email)).to.include({ user_id: joined.body.user_id, full_name: 'New Comer', role: 'admin' });
      // The new account is the invited organization's only: no organization of its own.
      expect(((await cp.api.get('/organizations', joined.body.token)).body as unknown[]).length).to.equal(1);

      const login = await cp.api.post('/auth/login', { email, password: 'a-new-password' });
      expect(login.status).to.equal(200);
      expect(login.body.org_id).to.equal(organization.id);

      const audit = await sql<{ action: string; actor_user_id: string; organization_id: string }>(
        `select action, actor_user_id, organization_id from audit_log where resource = 'invitation' and resource_id = $1 and action = 'accept'`,
        [created.body.id],
      );
      expect(audit).to.deep.equal([{ action: 'accept', actor_user_id: joined.body.user_id, organization_id: organization.id }]);
    });

    it('refuses the link once it was used', async () => {
      const owner = await cp.api.newUser('reuse');
      const email = address('once');
      expect((await invite(owner.token, email)).status).to.equal(201);
      const token = await mailedToken(email);
      expect((await accept({ token, password: 'a-new-password', full_name: 'Once' })).status).to.equal(200);

      expect((await preview(token)).status).to.equal(404);
      const again = await accept({ token, password: 'a-new-password', full_name: 'Once' });
      expect(again.status).to.equal(404);
      expect(again.body.error).to.equal((await preview('made-up-token')).body.error);
    });
  });

  describe('inviting someone with an account', () => {
    it('joins them with their own password, landing in the invited organization', async () => {
      const owner = await cp.api.newUser('host');
      const guest = await cp.api.newUser('guest');
      expect((await invite(owner.token, guest.email, 'viewer')).status).to.equal(201);
      const token = await mailedToken(guest.email);
      expect((await preview(token)).body).to.include({ account_exists: true, role: 'viewer' });

      const wrong = await accept({ token, password: 'not-the-password' });
      expect(wrong.status).to.equal(401);
      expect((await preview(token)).status, 'a wrong password leaves the invitation open').to.equal(200);

      const joined = await accept({ token, password: guest.password });
      expect(joined.status, joined.text).to.equal(200);
      expect(joined.body).to.include({ user_id: guest.userId, org_id: owner.orgId });
      expect((await cp.api.get('/organization', joined.body.token)).body).to.include({ id: owner.orgId, role: 'viewer' });
      // Their own organization is still theirs.
      const theirs = (await cp.api.get('/organizations', joined.body.token)).body as { id: string; role: string }[];
      expect(theirs.map((o) => o.id)).to.have.members([owner.orgId, guest.orgId]);
      expect((await membersOf(owner)).find((m) => m.user_id === guest.userId)?.role).to.equal('viewer');

      // In the inviting organization's log: the failed try and the sign-in, as a login's would be.
      const signIns = await sql<{ action: string; resource_id: string | null; after: unknown }>(
        `select action, resource_id, after from audit_log where resource = 'session' and actor_user_id = $1 and organization_id = $2 order by id`,
        [guest.userId, owner.orgId],
      );
      expect(signIns).to.deep.equal([
        { action: 'sign_in_failed', resource_id: null, after: { method: 'invitation' } },
        { action: 'sign_in', resource_id: joined.body.session_id, after: { method: 'invitation' } },
      ]);
    });

    it('answers 409 for someone who is a member already', async () => {
      const owner = await cp.api.newUser('members');
      const member = await cp.api.newUser('already');
      expect((await cp.api.post('/members', { email: member.email, role: 'member' }, owner.token)).status).to.equal(201);
      const again = await invite(owner.token, member.email.toUpperCase());
      expect(again.status).to.equal(409);
      expect((await invite(owner.token, owner.email)).status).to.equal(409);
    });
  });

  describe('who may invite', () => {
    it('refuses members and viewers (403), and a role above the inviter’s, to invite or revoke (403)', async () => {
      const owner = await cp.api.newUser('ranks');
      for (const role of ['member', 'viewer'] as const) {
        const key = await cp.api.keyWithRole(owner, role);
        const refused = await invite(key, address(role));
        expect(refused.status, `${role}: ${refused.text}`).to.equal(403);
        expect((await cp.api.get('/invitations', key)).status).to.equal(403);
      }

      const adminEmail = address('admin');
      expect((await invite(owner.token, adminEmail, 'admin')).status).to.equal(201);
      const admin = await accept({ token: await mailedToken(adminEmail), password: 'admin-password', full_name: 'Admin' });
      expect(admin.status).to.equal(200);
      const aboveOwn = await invite(admin.body.token, address('owner'), 'owner');
      expect(aboveOwn.status).to.equal(403);
      expect(aboveOwn.body.error).to.include('owner');
      expect((await invite(admin.body.token, address('peer'), 'admin')).status).to.equal(201);
      const ownersInvitation = await invite(owner.token, address('co-owner'), 'owner');
      expect((await cp.api.del(`/invitations/${ownersInvitation.body.id}`, admin.body.token)).status, "revoking an owner's invitation").to.equal(403);
    });
  });

  describe('revoking, expiry and replacing', () => {
    it('refuses a revoked link, and lists every invitation with its status and inviter', async () => {
      const owner = await cp.api.newUser('lister');
      const [pendingEmail, acceptedEmail, revokedEmail] = [address('pending'), address('accepted'), address('revoked')];
      const pending = await invite(owner.token, pendingEmail);
      const accepted = await invite(owner.token, acceptedEmail, 'viewer');
      const revoked = await invite(owner.token, revokedEmail);
      expect([pending.status, accepted.status, revoked.status]).to.deep.equal([201, 201, 201]);
      expect((await accept({ token: await mailedToken(acceptedEmail), password: 'accepted-password', full_name: 'Accepted' })).status).to.equal(200);

      const revokedToken = await mailedToken(revokedEmail);
      expect((await cp.api.del(`/invitations/${revoked.body.id}`, owner.token)).status).to.equal(204);
      expect((await preview(revokedToken)).status).to.equal(404);
      expect((await accept({ token: revokedToken, password: 'revoked-password', full_name: 'Revoked' })).status).to.equal(404);
      expect((await cp.api.del(`/invitations/${accepted.body.id}`, owner.token)).status, 'an accepted invitation').to.equal(409);

      const other = await cp.api.newUser('stranger');
      expect((await cp.api.del(`/invitations/${pending.body.id}`, other.token)).status, "another organization's").to.equal(404);

      const list = await listOf(owner);
      expect(list.map((i) => [i.email, i.status])).to.deep.equal([
        [revokedEmail, 'revoked'],
        [acceptedEmail, 'accepted'],
        [pendingEmail, 'pending'],
      ]);
      for (const i of list) expect(i.invited_by).to.deep.include({ user_id: owner.userId, email: owner.email });
      expect((await listOf(other)).length).to.equal(0);
    });

    it('refuses a link after 7 days and lists it as expired', async () => {
      const owner = await cp.api.newUser('expiry');
      const email = address('late');
      expect((await invite(owner.token, email)).status).to.equal(201);
      const token = await mailedToken(email);
      clock.advance(7 * DAY_MS - 60_000);
      expect((await preview(token)).status, 'a minute before the end').to.equal(200);
      clock.advance(2 * 60_000);
      try {
        expect((await preview(token)).status).to.equal(404);
        expect((await accept({ token, password: 'too-late-password', full_name: 'Late' })).status).to.equal(404);
        expect((await listOf(owner)).map((i) => i.status)).to.deep.equal(['expired']);

        // Inviting again replaces the expired one with a new link.
        expect((await invite(owner.token, email)).status).to.equal(201);
        const fresh = await mailedToken(email, 2);
        expect((await preview(fresh)).status).to.equal(200);
        expect((await listOf(owner)).map((i) => i.status)).to.deep.equal(['pending']);
      } finally {
        clock.advance(-(7 * DAY_MS + 60_000));
      }
    });

    it('replaces a pending invitation of the same address: the old link stops working', async () => {
      const owner = await cp.api.newUser('replace');
      const email = address('twice');
      const first = await invite(owner.token, email, 'viewer');
      const firstToken = await mailedToken(email);
      const second = await invite(owner.token, email, 'member');
      expect(second.status).to.equal(201);
      expect(second.body.id).to.not.equal(first.body.id);
      const secondToken = await mailedToken(email, 2);

      expect((await preview(firstToken)).status).to.equal(404);
      expect((await preview(secondToken)).body.role).to.equal('member');
      expect((await listOf(owner)).map((i) => [i.id, i.role, i.status])).to.deep.equal([[second.body.id, 'member', 'pending']]);
    });
  });

  describe('without SMTP settings', () => {
    let bare: TestControlPlane;
    before(async () => {
      bare = await startTestControlPlane();
    });
    after(() => bare?.stop());

    it('still invites, and hands the inviter the link to pass on', async () => {
      const owner = await bare.api.newUser('nomail');
      const email = address('handed');
      const created = await bare.api.post('/invitations', { email, role: 'member' }, owner.token);
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ email_sent: false, status: 'pending' });
      expect(created.body.email_error).to.include('SMTP_HOST');
      const url = new URL(created.body.accept_url);
      expect(url.pathname).to.equal('/accept-invitation');
      const token = url.searchParams.get('token')!;

      expect((await bare.api.get(`/invitations/preview?token=${token}`)).body).to.include({ email, account_exists: false });
      const joined = await bare.api.post('/auth/invitations/accept', { token, password: 'handed-password', full_name: 'Handed' });
      expect(joined.status, joined.text).to.equal(200);
      expect(joined.body.org_id).to.equal(owner.orgId);
      const [listed] = (await bare.api.get('/invitations', owner.token)).body as { email_sent: boolean; status: string }[];
      expect(listed).to.include({ email_sent: false, status: 'accepted' });
    });
  });
});
