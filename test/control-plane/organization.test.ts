// The organization, its members and roles, switching between organizations, and the user's own profile.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { sql } from '../support/sql.js';

describe('organization, members and profile', () => {
  let cp: TestControlPlane;
  before(async () => {
    cp = await startTestControlPlane();
  });
  after(() => cp?.stop());

  const add = (owner: TestUser, member: TestUser, role: string) => cp.api.post('/members', { email: member.email, role }, owner.token);

  describe('organization', () => {
    it('shows the plan, and lets only an owner rename it, change its slug or its plan', async () => {
      const owner = await cp.api.newUser('org-owner');
      const admin = await cp.api.newUser('org-admin');
      const org = (await cp.api.get('/organization', owner.token)).body;
      expect(org).to.include({ id: owner.orgId, plan: 'free' });
      const renamed = await cp.api.put('/organization', { name: 'Acme', slug: `acme-${Date.now()}` }, owner.token);
      expect(renamed.status, renamed.text).to.equal(200);
      expect(renamed.body.name).to.equal('Acme');
      expect((await cp.api.put('/organization', { plan: 'platinum' }, owner.token)).status).to.equal(400);
      for (const plan of ['__proto__', 'constructor', 'toString']) expect((await cp.api.put('/organization', { plan }, owner.token)).status, plan).to.equal(400);
      expect((await cp.api.put('/organization', { plan: 'unlimited' }, owner.token)).body.plan).to.equal('unlimited');
      expect((await cp.api.put('/organization', { slug: 'Not A Slug' }, owner.token)).status).to.equal(400);
      await add(owner, admin, 'admin');
      const adminToken = (await cp.api.post('/auth/login', { email: admin.email, password: admin.password })).body.token;
      expect((await cp.api.get('/organization', adminToken)).body.id, 'a login lands in the first organization').to.equal(admin.orgId);
      const taken = await cp.api.put('/organization', { slug: renamed.body.slug }, admin.token);
      expect(taken.status, 'another organization cannot take the slug').to.equal(409);
    });
  });

  describe('DEFAULT_PLAN', () => {
    it('starts a self-hosted instance with DEFAULT_PLAN=unlimited without the free limit on services', async () => {
      const own = await startTestControlPlane({ env: { DEFAULT_PLAN: 'unlimited' } });
      try {
        const owner = await own.api.newUser('unlimited-owner');
        expect((await own.api.get('/organization', owner.token)).body.plan).to.equal('unlimited');
        for (let i = 0; i < 6; i++) {
          const created = await own.api.post('/services', { name: `svc-${i}`, endpoint: `http://127.0.0.1:9/${i}`, check_type: 'HTTP' }, owner.token);
          expect(created.status, created.text).to.equal(201);
        }
      } finally {
        await own.stop();
      }
    });
  });

  describe('GET /organization', () => {
    it("answers the actor's effective role, to viewers too", async () => {
      const owner = await cp.api.newUser('org-role-owner');
      const viewer = await cp.api.newUser('org-role-viewer');
      await add(owner, viewer, 'viewer');
      const mine = await cp.api.get('/organization', owner.token);
      expect(mine.body).to.have.all.keys('id', 'name', 'slug', 'plan', 'role', 'created_at', 'updated_at');
      expect(mine.body).to.include({ id: owner.orgId, role: 'owner' });
      const switched = await cp.api.post(`/organizations/${owner.orgId}/token`, {}, viewer.token);
      const seen = await cp.api.get('/organization', switched.body.token);
      expect(seen.status, seen.text).to.equal(200);
      expect(seen.body).to.include({ id: owner.orgId, role: 'viewer' });
      expect((await cp.api.get('/organization', await cp.api.keyWithRole(owner, 'member'))).body.role, 'an API key acts with its own role').to.equal('member');
    });
  });

  describe('GET /organizations', () => {
    it('lists the organizations the user belongs to by name, with the role in each', async () => {
      const u = await cp.api.newUser('orgs-list');
      const b = await cp.api.newUser('orgs-list-b');
      const c = await cp.api.newUser('orgs-list-c');
      await add(b, u, 'viewer');
      await add(c, u, 'admin');
      await sql('update organizations set name = $2 where id = $1', [u.orgId, 'middle']);
      await sql('update organizations set name = $2 where id = $1', [b.orgId, 'Zulu']);
      await sql('update organizations set name = $2 where id = $1', [c.orgId, 'alpha']);
      const r = await cp.api.get('/organizations', u.token);
      expect(r.status, r.text).to.equal(200);
      expect(r.body.map((o: any) => [o.name, o.role])).to.deep.equal([['alpha', 'admin'], ['middle', 'owner'], ['Zulu', 'viewer']]);
      expect(r.body[0]).to.have.all.keys('id', 'name', 'slug', 'plan', 'role', 'created_at', 'updated_at');
      expect(r.body[0]).to.include({ id: c.orgId, plan: 'free' });
    });

    it("answers only an API key's own organization, with the key's role", async () => {
      const owner = await cp.api.newUser('orgs-key');
      const other = await cp.api.newUser('orgs-key-other');
      await add(other, owner, 'member');
      const r = await cp.api.get('/organizations', await cp.api.keyWithRole(owner, 'viewer'));
      expect(r.status, r.text).to.equal(200);
      expect(r.body.map((o: any) => [o.id, o.role])).to.deep.equal([[owner.orgId, 'viewer']]);
    });
  });

  describe('POST /organizations/{id}/token', () => {
    const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());

    it("answers a token acting in that organization with that membership's role", async () => {
      const a = await cp.api.newUser('switch-a');
      const b = await cp.api.newUser('switch-b');
      await add(b, a, 'viewer');
      const inB = (await cp.api.post('/services', { name: 'only in b', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, b.token)).body;
      await cp.api.post('/services', { name: 'only in a', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, a.token);
      const before = Date.now();
      const r = await cp.api.post(`/organizations/${b.orgId}/token`, {}, a.token);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.have.all.keys('token', 'user_id', 'org_id', 'role', 'expires_at');
      expect(r.body).to.include({ user_id: a.userId, org_id: b.orgId, role: 'viewer' });
      const claims = claimsOf(r.body.token);
      expect(claims).to.include({ user_id: a.userId, tenant_id: b.orgId, email: a.email });
      expect(claims.exp - claims.iat, 'the lifetime of a login token').to.equal(claimsOf(a.token).exp - claimsOf(a.token).iat);
      expect(Date.parse(r.body.expires_at)).to.equal(claims.exp * 1000).and.be.at.least(before + 72 * 3_600_000 - 1000);

      const services = await cp.api.get('/services', r.body.token);
      expect(services.body.map((s: any) => s.id)).to.deep.equal([inB.id]);
      expect((await cp.api.get('/organization', r.body.token)).body).to.include({ id: b.orgId, role: 'viewer' });
      expect((await cp.api.post('/services', { name: 'x', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, r.body.token)).status, 'a viewer there').to.equal(403);
      const back = await cp.api.request('POST', `/organizations/${a.orgId}/token`, { token: r.body.token });
      expect(back.status, 'without a body, back to the own organization').to.equal(200);
      expect((await cp.api.get('/organization', back.body.token)).body).to.include({ id: a.orgId, role: 'owner' });
    });

    it('answers 403 with one message for a foreign or unknown organization, and for an API key', async () => {
      const u = await cp.api.newUser('switch-refused');
      const stranger = await cp.api.newUser('switch-stranger');
      const foreign = await cp.api.post(`/organizations/${stranger.orgId}/token`, {}, u.token);
      const unknown = await cp.api.post(`/organizations/${randomUUID()}/token`, {}, u.token);
      expect([foreign.status, unknown.status]).to.deep.equal([403, 403]);
      expect(foreign.body.error).to.equal(unknown.body.error);
      const key = await cp.api.post(`/organizations/${u.orgId}/token`, {}, await cp.api.keyWithRole(u, 'owner'));
      expect(key.status).to.equal(403);
      expect(key.body.error).to.match(/API keys act in their own organization only/);
    });

    it('answers 400 for an id that is not a UUID or a body with fields', async () => {
      const u = await cp.api.newUser('switch-bad');
      expect((await cp.api.post('/organizations/acme/token', {}, u.token)).status).to.equal(400);
      expect((await cp.api.post(`/organizations/${u.orgId}/token`, { role: 'owner' }, u.token)).status).to.equal(400);
      expect((await cp.api.post(`/organizations/${u.orgId}/token`, [], u.token)).status).to.equal(400);
      expect((await cp.api.request('POST', `/organizations/${u.orgId}/token`)).status, 'unauthenticated').to.equal(401);
    });
  });

  describe('members', () => {
    it('adds registered users with a role, changes roles, removes them, and never leaves no owner', async () => {
      const owner = await cp.api.newUser('members-owner');
      const member = await cp.api.newUser('members-member');
      const added = await add(owner, member, 'viewer');
      expect(added.status, added.text).to.equal(201);
      expect(added.body).to.include({ user_id: member.userId, role: 'viewer', email: member.email });
      expect((await add(owner, member, 'viewer')).status, 'already a member').to.equal(409);
      expect((await cp.api.post('/members', { email: 'nobody-here@example.com' }, owner.token)).status).to.equal(404);
      const list = (await cp.api.get('/members', owner.token)).body;
      expect(list.map((m: any) => m.role).sort()).to.deep.equal(['owner', 'viewer']);
      expect((await cp.api.put(`/members/${member.userId}`, { role: 'admin' }, owner.token)).body.role).to.equal('admin');
      expect((await cp.api.put(`/members/${owner.userId}`, { role: 'admin' }, owner.token)).status, 'the last owner').to.equal(409);
      expect((await cp.api.del(`/members/${owner.userId}`, owner.token)).status, 'the last owner').to.equal(409);
      expect((await cp.api.del(`/members/${member.userId}`, owner.token)).status).to.equal(204);
      expect((await cp.api.get('/members', owner.token)).body).to.have.length(1);
    });

    it('enforces roles: viewers only read, admins cannot grant ownership', async () => {
      const owner = await cp.api.newUser('roles-owner');
      const viewer = await cp.api.newUser('roles-viewer');
      const admin = await cp.api.newUser('roles-admin');
      const outsider = await cp.api.newUser('roles-outsider');
      await add(owner, viewer, 'viewer');
      await add(owner, admin, 'admin');
      // Act in the owner's organization: a token whose tenant is that organization.
      const inOrg = async (u: TestUser) => {
        const { SignJWT } = await import('jose');
        return new SignJWT({ user_id: u.userId, tenant_id: owner.orgId, email: u.email })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode('outpost-test-secret-0123456789abcdefghijklmnop'));
      };
      const viewerToken = await inOrg(viewer);
      const adminToken = await inOrg(admin);
      expect((await cp.api.get('/services', viewerToken)).status).to.equal(200);
      for (const [method, path, body] of [
        ['POST', '/services', { name: 'x', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }],
        ['POST', '/alert-rules', { name: 'x', severity: 'info' }],
        ['POST', '/notification-channels', { name: 'x', channel_type: 'sms', config: { to: '+15555550100' } }],
        ['POST', '/maintenance-windows', { name: 'x', starts_at: new Date().toISOString(), ends_at: new Date(Date.now() + 1000).toISOString() }],
        ['POST', '/escalation-policies', { name: 'x', steps: [{ delay_minutes: 1, channel_ids: [owner.userId] }] }],
        ['POST', '/agents', { name: 'x', location: 'x' }],
        ['POST', '/members', { email: outsider.email, role: 'viewer' }],
        ['POST', '/api-keys', { name: 'x', role: 'viewer' }],
        ['PUT', '/organization', { name: 'mine' }],
      ] as const) {
        expect((await cp.api.request(method, path, { json: body, token: viewerToken })).status, `${method} ${path} as viewer`).to.equal(403);
      }
      expect((await add({ ...owner, token: adminToken }, outsider, 'owner')).status, 'an admin cannot grant owner').to.equal(403);
      expect((await add({ ...owner, token: adminToken }, outsider, 'member')).status).to.equal(201);
      expect((await cp.api.put('/organization', { name: 'x' }, adminToken)).status, 'only owners change the organization').to.equal(403);
    });
  });

  describe('profile', () => {
    it('shows the user and their organizations, and changes name, e-mail and password', async () => {
      const u = await cp.api.newUser('profile');
      const other = await cp.api.newUser('profile-other');
      const profile = (await cp.api.get('/profile', u.token)).body;
      expect(profile).to.include({ id: u.userId, email: u.email });
      expect(profile.organizations).to.deep.equal([{ id: u.orgId, name: profile.organizations[0].name, slug: profile.organizations[0].slug, role: 'owner' }]);
      expect((await cp.api.put('/profile', { full_name: 'New Name' }, u.token)).body.full_name).to.equal('New Name');
      expect((await cp.api.put('/profile', { email: other.email }, u.token)).status).to.equal(409);
      expect((await cp.api.put('/profile', { password: 'a-new-password' }, u.token)).status, 'needs the current password').to.equal(403);
      expect((await cp.api.put('/profile', { password: 'a-new-password', current_password: 'wrong' }, u.token)).status).to.equal(403);
      expect((await cp.api.put('/profile', { password: 'a-new-password', current_password: u.password }, u.token)).status).to.equal(200);
      expect((await cp.api.post('/auth/login', { email: u.email, password: 'a-new-password' })).status).to.equal(200);
      expect((await cp.api.post('/auth/login', { email: u.email, password: u.password })).status).to.equal(401);
    });
  });
});
