// The organization, its members and roles, and the user's own profile.
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

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
