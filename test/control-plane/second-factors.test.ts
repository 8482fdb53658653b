// Second factors against a real control plane whose clock the test moves: TOTP set-up and
// codes (±1 step, once each), recovery codes, the two-step login and its limits, proof before
// a factor is removed, the organization's rule that members have a factor, and the audit rows.
import { expect } from 'chai';
import { Secret, TOTP } from 'otpauth';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { MovableClock } from '../support/movable-clock.js';
import { sql } from '../support/sql.js';

const STEP_MS = 30_000;

describe('second factors', () => {
  let cp: TestControlPlane;
  const clock = new MovableClock();

  before(async () => {
    cp = await startTestControlPlane({ start: { clock } });
  });
  after(() => cp?.stop());

  /** Moves the control plane's clock to 2 s into a new step, so a test's codes cannot straddle a step boundary. */
  const freshStep = () => clock.set(new Date((Math.floor(clock.now().getTime() / STEP_MS) + 1) * STEP_MS + 2_000));
  /** The code of the step `steps` away from the control plane's now. */
  const codeAt = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: clock.now().getTime() + steps * STEP_MS });

  /** Sets up TOTP for `user`; the clock is then on a step after the one the confirming code used. */
  async function enrol(user: TestUser): Promise<{ secret: string; recoveryCodes: string[] }> {
    const setup = await cp.api.post('/profile/mfa/totp', {}, user.token);
    expect(setup.status, setup.text).to.equal(200);
    freshStep();
    const confirmed = await cp.api.post('/profile/mfa/totp/confirm', { code: codeAt(setup.body.secret) }, user.token);
    expect(confirmed.status, confirmed.text).to.equal(200);
    freshStep();
    return { secret: setup.body.secret, recoveryCodes: confirmed.body.recovery_codes };
  }

  const passwordStep = async (user: TestUser) => {
    const r = await cp.api.post('/auth/login', { email: user.email, password: user.password });
    expect(r.status, r.text).to.equal(200);
    return r.body as { mfa_required?: true; mfa_token: string; methods: string[]; mfa_enrollment_required?: boolean; token?: string };
  };
  const secondStep = (mfaToken: string, factor: Record<string, unknown>) => cp.api.post('/auth/login/mfa', { mfa_token: mfaToken, ...factor });

  describe('TOTP set-up', () => {
    it('answers the secret, its otpauth URI and a QR code, and seals the secret at rest', async () => {
      const user = await cp.api.newUser('totp-setup');
      const setup = await cp.api.post('/profile/mfa/totp', {}, user.token);
      expect(setup.status).to.equal(200);
      expect(setup.body.secret).to.match(/^[A-Z2-7]{32}$/);
      const uri = new URL(setup.body.otpauth_uri);
      expect(uri.protocol).to.equal('otpauth:');
      expect(uri.searchParams.get('secret')).to.equal(setup.body.secret);
      expect(uri.searchParams.get('issuer')).to.equal('Outpost');
      expect(decodeURIComponent(uri.pathname)).to.include(user.email);
      expect(setup.body.qr_code).to.match(/^data:image\/svg\+xml;base64,/);
      expect(Buffer.from(setup.body.qr_code.split(',')[1], 'base64').toString()).to.match(/^<svg /);

      const [row] = await sql<{ secret_sealed: string }>('select secret_sealed from user_totp where user_id = $1', [user.userId]);
      expect(row!.secret_sealed).to.match(/^enc:v2:/);
      expect(row!.secret_sealed).to.not.include(setup.body.secret);
    });

    it('is enabled only by a right code, and then answers ten recovery codes kept as hashes', async () => {
      const user = await cp.api.newUser('totp-confirm');
      const setup = await cp.api.post('/profile/mfa/totp', {}, user.token);
      freshStep();
      const wrong = await cp.api.post('/profile/mfa/totp/confirm', { code: codeAt(setup.body.secret, 3) }, user.token);
      expect(wrong.status).to.equal(400);
      expect((await cp.api.get('/profile/mfa', user.token)).body.totp.enabled).to.equal(false);

      const confirmed = await cp.api.post('/profile/mfa/totp/confirm', { code: codeAt(setup.body.secret) }, user.token);
      expect(confirmed.status).to.equal(200);
      const codes: string[] = confirmed.body.recovery_codes;
      expect(codes).to.have.length(10);
      expect(new Set(codes).size).to.equal(10);
      const overview = await cp.api.get('/profile/mfa', user.token);
      expect(overview.body).to.deep.include({ totp: { enabled: true }, recovery_codes_left: 10, passkeys: [] });

      const stored = await sql<{ code_hash: string }>('select code_hash from user_recovery_codes where user_id = $1', [user.userId]);
      expect(stored).to.have.length(10);
      for (const { code_hash } of stored) expect(codes.some((c) => code_hash.includes(c) || code_hash.includes(c.replace('-', '')))).to.equal(false);
      // Shown once: a second set-up is refused while TOTP is on.
      expect((await cp.api.post('/profile/mfa/totp', {}, user.token)).status).to.equal(409);
    });

    it('is refused to API keys', async () => {
      const owner = await cp.api.newUser('totp-key');
      const key = await cp.api.keyWithRole(owner, 'owner');
      const r = await cp.api.post('/profile/mfa/totp', {}, key);
      expect(r.status).to.equal(403);
    });
  });

  describe('login with TOTP', () => {
    it('answers mfa_required and an mfa_token instead of a token, then a session for a code', async () => {
      const user = await cp.api.newUser('totp-login');
      const { secret } = await enrol(user);
      const first = await passwordStep(user);
      expect(first).to.include({ mfa_required: true });
      expect(first.methods).to.deep.equal(['totp', 'recovery_code']);
      expect(first).to.not.have.property('token');
      expect(first.mfa_token).to.be.a('string');
      const hashed = await sql('select 1 from mfa_tokens where token_hash = $1', [first.mfa_token]);
      expect(hashed, 'the token is stored hashed').to.have.length(0);

      const done = await secondStep(first.mfa_token, { code: codeAt(secret) });
      expect(done.status, done.text).to.equal(200);
      expect(done.body).to.include({ user_id: user.userId, org_id: user.orgId });
      expect((await cp.api.get('/profile', done.body.token)).status).to.equal(200);
      const [session] = await sql<{ method: string }>('select method from sessions where id = $1', [done.body.session_id]);
      expect(session!.method).to.equal('password');
    });

    it('accepts a code of the previous step and refuses one of two steps ago', async () => {
      const user = await cp.api.newUser('totp-window');
      const { secret } = await enrol(user);
      freshStep();
      freshStep();
      const old = await secondStep((await passwordStep(user)).mfa_token, { code: codeAt(secret, -2) });
      expect(old.status).to.equal(401);
      const previous = await secondStep((await passwordStep(user)).mfa_token, { code: codeAt(secret, -1) });
      expect(previous.status, previous.text).to.equal(200);
    });

    it('refuses a code used once already, also in a later step', async () => {
      const user = await cp.api.newUser('totp-replay');
      const { secret } = await enrol(user);
      const code = codeAt(secret);
      expect((await secondStep((await passwordStep(user)).mfa_token, { code })).status).to.equal(200);
      const replay = await secondStep((await passwordStep(user)).mfa_token, { code });
      expect(replay.status).to.equal(401);
      clock.advance(STEP_MS);
      // Still within the window of the next step, and still used.
      expect((await secondStep((await passwordStep(user)).mfa_token, { code })).status).to.equal(401);
      expect((await secondStep((await passwordStep(user)).mfa_token, { code: codeAt(secret) })).status).to.equal(200);
    });

    it('takes each recovery code once', async () => {
      const user = await cp.api.newUser('recovery');
      const { recoveryCodes } = await enrol(user);
      const code = recoveryCodes[3]!;
      const used = await secondStep((await passwordStep(user)).mfa_token, { recovery_code: code.toUpperCase() });
      expect(used.status, used.text).to.equal(200);
      expect((await secondStep((await passwordStep(user)).mfa_token, { recovery_code: code })).status).to.equal(401);
      expect((await cp.api.get('/profile/mfa', used.body.token)).body.recovery_codes_left).to.equal(9);
    });

    it('takes an mfa_token once, and not after five minutes', async () => {
      const user = await cp.api.newUser('mfa-token');
      const { secret } = await enrol(user);
      const { mfa_token } = await passwordStep(user);
      expect((await secondStep(mfa_token, { code: codeAt(secret) })).status).to.equal(200);
      clock.advance(STEP_MS);
      expect((await secondStep(mfa_token, { code: codeAt(secret) })).status).to.equal(401);

      const late = await passwordStep(user);
      clock.advance(5 * 60_000 + 1_000);
      freshStep();
      expect((await secondStep(late.mfa_token, { code: codeAt(secret) })).status).to.equal(401);
      expect((await secondStep('mfa_not-a-token', { code: codeAt(secret) })).status).to.equal(401);
    });

    it('refuses a token after five wrong codes, and the user after ten (429)', async () => {
      const user = await cp.api.newUser('totp-limit');
      const { secret } = await enrol(user);
      const wrong = codeAt(secret, 5);
      for (let round = 0; round < 2; round++) {
        const { mfa_token } = await passwordStep(user);
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) statuses.push((await secondStep(mfa_token, { code: wrong })).status);
        expect(statuses).to.deep.equal([401, 401, 401, 401, 401]);
        // Used up: even the right code is refused now.
        expect((await secondStep(mfa_token, { code: codeAt(secret) })).status).to.be.oneOf([401, 429]);
      }
      const limited = await secondStep((await passwordStep(user)).mfa_token, { code: codeAt(secret) });
      expect(limited.status).to.equal(429);
      expect(Number(limited.headers.get('retry-after'))).to.be.greaterThan(0);
    });

    it('asks for exactly one factor', async () => {
      const r = await secondStep('mfa_x', { code: '123456', recovery_code: 'abcde-fghij' });
      expect(r.status).to.equal(400);
      expect(r.body.error).to.include('exactly one');
    });
  });

  describe('removing TOTP and new recovery codes', () => {
    it('needs the password or a code', async () => {
      const user = await cp.api.newUser('totp-disable');
      const { secret, recoveryCodes } = await enrol(user);
      expect((await cp.api.post('/profile/mfa/totp/disable', {}, user.token)).status).to.equal(400);
      expect((await cp.api.post('/profile/mfa/totp/disable', { password: 'not-the-password' }, user.token)).status).to.equal(403);
      expect((await cp.api.post('/profile/mfa/recovery-codes', { code: codeAt(secret, 4) }, user.token)).status).to.equal(403);

      const fresh = await cp.api.post('/profile/mfa/recovery-codes', { code: codeAt(secret) }, user.token);
      expect(fresh.status, fresh.text).to.equal(200);
      expect(fresh.body.recovery_codes).to.have.length(10);
      expect((await secondStep((await passwordStep(user)).mfa_token, { recovery_code: recoveryCodes[0] })).status, 'an old code').to.equal(401);

      expect((await cp.api.post('/profile/mfa/totp/disable', { password: user.password }, user.token)).status).to.equal(204);
      const plain = await passwordStep(user);
      expect(plain.token, 'a login without a factor gets its token at once').to.be.a('string');
      expect(plain).to.not.have.property('mfa_required');
      expect(await sql('select 1 from user_recovery_codes where user_id = $1', [user.userId])).to.have.length(0);
    });
  });

  describe('an organization that requires a second factor', () => {
    it('is set by admins only', async () => {
      const owner = await cp.api.newUser('policy-admin');
      const member = await cp.api.keyWithRole(owner, 'member');
      expect((await cp.api.get('/organization/security', owner.token)).body).to.deep.equal({ require_mfa: false });
      expect((await cp.api.put('/organization/security', { require_mfa: true }, member)).status).to.equal(403);
      expect((await cp.api.put('/organization/security', { require_mfa: 'yes' }, owner.token)).status).to.equal(400);
      const set = await cp.api.put('/organization/security', { require_mfa: true }, owner.token);
      expect(set.status).to.equal(200);
      expect(set.body).to.deep.equal({ require_mfa: true });
      const rows = await sql<{ before: unknown; after: unknown }>(
        "select before, after from audit_log where organization_id = $1 and resource = 'organization_security'",
        [owner.orgId],
      );
      expect(rows).to.have.length(1);
      expect(rows[0]).to.deep.include({ before: { require_mfa: false }, after: { require_mfa: true } });
    });

    it('has a member without a factor set up TOTP with the mfa_token before signing in', async () => {
      const owner = await cp.api.newUser('policy');
      expect((await cp.api.put('/organization/security', { require_mfa: true }, owner.token)).status).to.equal(200);
      const first = await passwordStep(owner);
      expect(first).to.deep.include({ mfa_required: true, mfa_enrollment_required: true, methods: [] });
      expect((await secondStep(first.mfa_token, { code: '123456' })).status).to.equal(403);

      const setup = await cp.api.post('/auth/login/mfa/totp', { mfa_token: first.mfa_token });
      expect(setup.status, setup.text).to.equal(200);
      freshStep();
      const wrong = await cp.api.post('/auth/login/mfa/totp/confirm', { mfa_token: first.mfa_token, code: codeAt(setup.body.secret, 4) });
      expect(wrong.status).to.equal(401);
      const done = await cp.api.post('/auth/login/mfa/totp/confirm', { mfa_token: first.mfa_token, code: codeAt(setup.body.secret) });
      expect(done.status, done.text).to.equal(200);
      expect(done.body.recovery_codes).to.have.length(10);
      expect((await cp.api.get('/profile', done.body.token)).status).to.equal(200);

      // From now on an ordinary second step, and the set-up route is closed to its tokens.
      const next = await passwordStep(owner);
      expect(next).to.deep.include({ mfa_required: true, methods: ['totp', 'recovery_code'] });
      expect(next).to.not.have.property('mfa_enrollment_required');
      expect((await cp.api.post('/auth/login/mfa/totp', { mfa_token: next.mfa_token })).status).to.equal(403);
    });

    it('does not bother anyone while it is off', async () => {
      const owner = await cp.api.newUser('policy-off');
      expect((await passwordStep(owner)).token).to.be.a('string');
    });
  });

  describe('the audit log', () => {
    it('records set-up, sign-ins with a factor, failures, new codes and removal, never the secret', async () => {
      const user = await cp.api.newUser('mfa-audit');
      const { secret } = await enrol(user);
      const failed = await secondStep((await passwordStep(user)).mfa_token, { code: codeAt(secret, 6) });
      expect(failed.status).to.equal(401);
      const done = await secondStep((await passwordStep(user)).mfa_token, { code: codeAt(secret) });
      expect(done.status).to.equal(200);
      expect((await cp.api.post('/profile/mfa/recovery-codes', { password: user.password }, user.token)).status).to.equal(200);
      expect((await cp.api.post('/profile/mfa/totp/disable', { password: 'wrong-password' }, user.token)).status).to.equal(403);
      expect((await cp.api.post('/profile/mfa/totp/disable', { password: user.password }, user.token)).status).to.equal(204);

      const rows = await sql<{ action: string; resource: string; after: Record<string, unknown> | null; organization_id: string; actor_user_id: string }>(
        'select action, resource, after, organization_id, actor_user_id from audit_log where actor_user_id = $1 order by id',
        [user.userId],
      );
      const seen = rows.map((r) => `${r.action} ${r.resource}`);
      for (const expected of ['start_setup totp', 'enable totp', 'sign_in_failed session', 'sign_in session', 'regenerate recovery_codes', 'reauthenticate_failed user', 'disable totp']) {
        expect(seen, expected).to.include(expected);
      }
      expect(rows.find((r) => r.action === 'sign_in_failed')!.after).to.deep.equal({ method: 'password', second_factor: 'totp' });
      expect(rows.every((r) => r.organization_id === user.orgId)).to.equal(true);
      expect(JSON.stringify(rows)).to.not.include(secret);
      const all = await sql<{ text: string }>("select coalesce(before::text, '') || coalesce(after::text, '') as text from audit_log where actor_user_id = $1", [user.userId]);
      expect(all.map((r) => r.text).join('')).to.not.include(secret);
    });
  });

  it('keeps each user to their own passkeys', async () => {
    const a = await cp.api.newUser('pk-a');
    const rename = await cp.api.put(`/profile/mfa/passkeys/${crypto.randomUUID()}`, { name: 'x' }, a.token);
    expect(rename.status).to.equal(404);
    const remove = await cp.api.post(`/profile/mfa/passkeys/${crypto.randomUUID()}/remove`, { password: a.password }, a.token);
    expect(remove.status).to.equal(404);
    // Without passkeys there is nothing to prove with.
    expect((await cp.api.post('/profile/mfa/proof-options', {}, a.token)).status).to.equal(409);
  });
});
