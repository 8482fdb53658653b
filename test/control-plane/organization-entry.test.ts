// Entering an organization other than by its sign-in (switching to it, refreshing into it,
// accepting its invitation) meets the same rules: an organization that requires a second
// factor admits nobody without one, and a person with a factor is asked for it.
import { expect } from 'chai';
import { Secret, TOTP } from 'otpauth';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

describe('entering an organization', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;

  before(async () => {
    // No SMTP settings: an invitation answers its link.
    cp = await startTestControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  /** An owner whose organization requires a second factor. */
  async function strictOrganization(label: string): Promise<TestUser> {
    const owner = await cp.api.newUser(label);
    expect((await cp.api.put('/organization/security', { require_mfa: true }, owner.token)).status).to.equal(200);
    return owner;
  }
  /** TOTP set up for `user`; answers the recovery codes. */
  async function withTotp(user: TestUser): Promise<string[]> {
    const setup = await cp.api.post('/profile/mfa/totp', {}, user.token);
    const confirmed = await cp.api.post('/profile/mfa/totp/confirm', { code: TOTP.generate({ secret: Secret.fromBase32(setup.body.secret) }) }, user.token);
    expect(confirmed.status, confirmed.text).to.equal(200);
    return confirmed.body.recovery_codes as string[];
  }
  const inviteLink = async (owner: TestUser, email: string) => {
    const created = await cp.api.post('/invitations', { email, role: 'member' }, owner.token);
    expect(created.status, created.text).to.equal(201);
    return new URL(created.body.accept_url as string).searchParams.get('token')!;
  };

  it('refuses a switch and a refresh into an organization requiring a second factor to a person without one', async () => {
    const owner = await strictOrganization('entry-owner');
    const person = await cp.api.newUser('entry-person');
    expect((await cp.api.post('/members', { email: person.email, role: 'member' }, owner.token)).status).to.equal(201);
    const login = await cp.api.post('/auth/login', { email: person.email, password: person.password });

    const switched = await cp.api.post(`/organizations/${owner.orgId}/token`, {}, login.body.token);
    expect(switched.status).to.equal(403);
    expect(switched.body.error).to.match(/requires a second factor/);
    const refreshed = await cp.api.post('/auth/refresh', { refresh_token: login.body.refresh_token, org_id: owner.orgId });
    expect(refreshed.status).to.equal(403);

    // With a factor (asked at the sign-in that follows) the way in is open.
    const codes = await withTotp(person);
    const password = await cp.api.post('/auth/login', { email: person.email, password: person.password });
    expect(password.body.mfa_required).to.equal(true);
    const signedIn = await cp.api.post('/auth/login/mfa', { mfa_token: password.body.mfa_token, recovery_code: codes[0] });
    expect(signedIn.status, signedIn.text).to.equal(200);
    expect((await cp.api.post(`/organizations/${owner.orgId}/token`, {}, signedIn.body.token)).status).to.equal(200);
    expect((await cp.api.post('/auth/refresh', { refresh_token: signedIn.body.refresh_token, org_id: owner.orgId })).status).to.equal(200);
  });

  it('asks a person with a second factor for it before accepting an invitation signs them in', async () => {
    const owner = await cp.api.newUser('entry-inviter');
    const person = await cp.api.newUser('entry-invitee');
    const codes = await withTotp(person);
    const token = await inviteLink(owner, person.email);

    const accepted = await cp.api.post('/auth/invitations/accept', { token, password: person.password });
    expect(accepted.status, accepted.text).to.equal(200);
    expect(accepted.body).to.include({ mfa_required: true });
    expect(accepted.body).not.to.have.property('token');
    const signedIn = await cp.api.post('/auth/login/mfa', { mfa_token: accepted.body.mfa_token, recovery_code: codes[0] });
    expect(signedIn.status, signedIn.text).to.equal(200);
    expect(signedIn.body.org_id).to.equal(owner.orgId);
    expect((await cp.api.get('/organization', signedIn.body.token)).body.role).to.equal('member');
  });

  it('has a newcomer to an organization requiring a second factor set one up before the first session', async () => {
    const owner = await strictOrganization('entry-strict-inviter');
    const email = `entry-newcomer-${Date.now()}@example.com`;
    const token = await inviteLink(owner, email);
    const accepted = await cp.api.post('/auth/invitations/accept', { token, password: 'newcomer-password', full_name: 'New Comer' });
    expect(accepted.status, accepted.text).to.equal(200);
    expect(accepted.body).to.include({ mfa_required: true, mfa_enrollment_required: true });
    const setup = await cp.api.post('/auth/login/mfa/totp', { mfa_token: accepted.body.mfa_token });
    expect(setup.status, setup.text).to.equal(200);
    const done = await cp.api.post('/auth/login/mfa/totp/confirm', { mfa_token: accepted.body.mfa_token, code: TOTP.generate({ secret: Secret.fromBase32(setup.body.secret) }) });
    expect(done.status, done.text).to.equal(200);
    expect(done.body.org_id).to.equal(owner.orgId);
  });
});
