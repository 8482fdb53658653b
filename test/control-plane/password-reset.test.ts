// Password reset against a real SMTP server on 127.0.0.1: the mails are read and their links
// followed, with a clock the test moves for expiry. The control plane believes
// X-Forwarded-For from 127.0.0.1, so each test asks from client addresses of its own and the
// per-address limit of one test never meets another's.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { MovableClock } from '../support/movable-clock.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { startSmtpSink, type Mail, type SmtpSink } from '../fixtures/smtp-sink.js';

const newAddress = () => `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
const HOUR_MS = 3_600_000;

const bodyOf = (mail: Mail) =>
  mail.raw
    .slice(mail.raw.search(/\r?\n\r?\n/))
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

describe('password reset', () => {
  let cp: TestControlPlane;
  let smtp: SmtpSink;
  const clock = new MovableClock();

  before(async () => {
    smtp = await startSmtpSink();
    cp = await startTestControlPlane({ env: { ...smtp.env, TRUSTED_PROXIES: '127.0.0.1', PASSWORD_RESET_EMAIL_RATE_LIMIT: '4/3600' }, start: { clock } });
  });
  after(async () => {
    await cp?.stop();
    await smtp?.close();
  });

  const ask = (email: string, from = newAddress()) => cp.api.request('POST', '/auth/password-reset', { json: { email }, headers: { 'x-forwarded-for': from } });
  const complete = (token: string, password: string) => cp.api.post('/auth/password-reset/complete', { token, password });
  const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));
  /** The token of the reset link in the `count`th mail to `email`. */
  async function mailedToken(email: string, count = 1): Promise<string> {
    const mails = await poll(() => mailsTo(email).length >= count && mailsTo(email), { what: `${count} reset mail(s) to ${email}` });
    const link = /https?:\/\/\S+\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(bodyOf(mails[count - 1]!));
    if (!link) throw new Error(`no reset link in: ${bodyOf(mails[count - 1]!)}`);
    return link[1]!;
  }
  const login = (user: TestUser, password: string) => cp.api.post('/auth/login', { email: user.email, password });

  it('answers the same for known and unknown addresses, and mails only a known one', async () => {
    const user = await cp.api.newUser('known');
    const unknown = `nobody-${randomBytes(5).toString('hex')}@example.com`;
    const forUnknown = await ask(unknown);
    const forKnown = await ask(user.email);
    expect(forKnown.status, forKnown.text).to.equal(202);
    expect([forUnknown.status, forUnknown.body]).to.deep.equal([forKnown.status, forKnown.body]);

    await mailedToken(user.email);
    // A later known address's mail, asked after the unknown one: the unknown one's turn has passed.
    const later = await cp.api.newUser('later');
    await ask(later.email);
    await mailedToken(later.email);
    expect(mailsTo(unknown)).to.deep.equal([]);

    const requested = await sql<{ actor_user_id: string; organization_id: string }>(
      `select actor_user_id, organization_id from audit_log where action = 'password_reset_requested' and resource = 'user' and resource_id in ($1, $2)`,
      [user.userId, later.userId],
    );
    expect(requested).to.have.deep.members([
      { actor_user_id: user.userId, organization_id: user.orgId },
      { actor_user_id: later.userId, organization_id: later.orgId },
    ]);
    expect((await sql(`select 1 from audit_log where action = 'password_reset_requested' and actor_email = $1`, [unknown])).length).to.equal(0);
  });

  it('sets the new password with the link, once, and ends every session of the user', async () => {
    const user = await cp.api.newUser('reset');
    const other = await login(user, user.password);
    expect(other.status).to.equal(200);
    for (const token of [user.token, other.body.token]) expect((await cp.api.get('/profile', token)).status).to.equal(200);

    expect((await ask(user.email)).status).to.equal(202);
    const token = await mailedToken(user.email);
    const stored = await sql<{ token_hash: string }>('select token_hash from password_resets r join users u on u.id = r.user_id where u.email = $1', [user.email]);
    expect(stored.map((r) => r.token_hash).join()).to.not.include(token);

    expect((await complete(token, 'short')).status, 'a short password').to.equal(400);
    const done = await complete(token, 'a-brand-new-password');
    expect(done.status, done.text).to.equal(204);

    // Every token issued before the reset is refused (within the 5 s sessions promise).
    for (const old of [user.token, other.body.token]) {
      await poll(async () => (await cp.api.get('/profile', old)).status === 401, { what: 'a token of before the reset refused', timeoutMs: 5_000 });
    }
    expect((await login(user, user.password)).status).to.equal(401);
    expect((await login(user, 'a-brand-new-password')).status).to.equal(200);

    const again = await complete(token, 'yet-another-password');
    expect(again.status).to.equal(404);
    expect((await complete('made-up-token', 'yet-another-password')).body.error).to.equal(again.body.error);
    expect((await login(user, 'a-brand-new-password')).status).to.equal(200);

    const audit = await sql(`select 1 from audit_log where action = 'password_reset' and resource = 'user' and resource_id = $1 and organization_id = $2`, [user.userId, user.orgId]);
    expect(audit.length).to.equal(1);
  });

  it('keeps an older link working until one of them is used, then ends the others', async () => {
    const user = await cp.api.newUser('twolinks');
    await ask(user.email);
    const older = await mailedToken(user.email, 1);
    await ask(user.email);
    const newer = await mailedToken(user.email, 2);
    expect(older).to.not.equal(newer);

    expect((await complete(older, 'chosen-with-older')).status).to.equal(204);
    expect((await complete(newer, 'chosen-with-newer')).status).to.equal(404);
    expect((await login(user, 'chosen-with-older')).status).to.equal(200);
  });

  it('refuses a link after an hour', async () => {
    const user = await cp.api.newUser('expired');
    await ask(user.email);
    const token = await mailedToken(user.email);
    clock.advance(HOUR_MS + 60_000);
    try {
      expect((await complete(token, 'too-late-password')).status).to.equal(404);
    } finally {
      clock.advance(-(HOUR_MS + 60_000));
    }
    expect((await login(user, user.password)).status).to.equal(200);
  });

  it('limits requests per e-mail address and per client address (429)', async () => {
    const user = await cp.api.newUser('limited');
    for (let i = 0; i < 4; i++) expect((await ask(user.email)).status).to.equal(202);
    const perEmail = await ask(user.email);
    expect(perEmail.status).to.equal(429);
    expect(perEmail.headers.get('retry-after')).to.match(/^\d+$/);

    const from = newAddress();
    for (let i = 0; i < 10; i++) expect((await ask(`spray-${i}-${randomBytes(3).toString('hex')}@example.com`, from)).status).to.equal(202);
    expect((await ask(`spray-last-${randomBytes(3).toString('hex')}@example.com`, from)).status).to.equal(429);
    // Unknown addresses are limited alike: the limit tells nothing either.
    const unknown = `never-${randomBytes(5).toString('hex')}@example.com`;
    for (let i = 0; i < 4; i++) expect((await ask(unknown)).status).to.equal(202);
    expect((await ask(unknown)).status).to.equal(429);
  });

  it('answers 400 for a malformed address', async () => {
    const r = await ask('not-an-address');
    expect(r.status).to.equal(400);
    expect(r.body.error).to.include('email');
  });

  describe('a password change in the profile', () => {
    it('ends every other session of the user, keeping the one that changed it', async () => {
      const user = await cp.api.newUser('changer');
      const elsewhere = await login(user, user.password);
      const changed = await cp.api.put('/profile', { password: 'changed-password', current_password: user.password }, user.token);
      expect(changed.status, changed.text).to.equal(200);
      await poll(async () => (await cp.api.get('/profile', elsewhere.body.token)).status === 401, { what: 'the other session refused', timeoutMs: 5_000 });
      expect((await cp.api.get('/profile', user.token)).status).to.equal(200);
    });
  });
});

describe('password reset without SMTP settings', () => {
  let cp: TestControlPlane;
  before(async () => {
    cp = await startTestControlPlane();
  });
  after(() => cp?.stop());

  it('says that no mail can be sent, the same for every address', async () => {
    const user = await cp.api.newUser('nomail');
    const known = await cp.api.post('/auth/password-reset', { email: user.email });
    const unknown = await cp.api.post('/auth/password-reset', { email: `nobody-${randomBytes(5).toString('hex')}@example.com` });
    expect(known.status).to.equal(400);
    expect(known.body.error).to.include('SMTP_HOST');
    expect([unknown.status, unknown.body]).to.deep.equal([known.status, known.body]);
  });
});
