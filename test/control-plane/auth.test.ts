import { expect } from 'chai';
import { SignJWT } from 'jose';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

const SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

describe('auth routes', () => {
  let cp: TestControlPlane;
  before(async () => {
    cp = await startTestControlPlane({ env: { JWT_SECRET: SECRET } });
  });
  after(() => cp?.stop());

  const email = () => `auth-${Math.random().toString(16).slice(2)}@Example.com`;

  describe('POST /auth/register', () => {
    it('creates the user and a free organization and answers 201', async () => {
      const r = await cp.api.post('/auth/register', { email: email(), password: 'long-enough', full_name: 'Ada Lovelace' });
      expect(r.status).to.equal(201);
      expect(r.body.message).to.equal('user registered');
      expect(r.body.user_id).to.match(/^[0-9a-f-]{36}$/);
      expect(r.body.org_id).to.match(/^[0-9a-f-]{36}$/);
    });

    it('answers 409 for an e-mail already registered, compared without case or spaces', async () => {
      const address = email();
      expect((await cp.api.post('/auth/register', { email: address, password: 'long-enough', full_name: 'A' })).status).to.equal(201);
      const again = await cp.api.post('/auth/register', { email: `  ${address.toUpperCase()} `, password: 'long-enough', full_name: 'B' });
      expect(again.status).to.equal(409);
      expect(again.body.error).to.be.a('string');
    });

    it('gives two users with the same name distinct organizations', async () => {
      const a = await cp.api.post('/auth/register', { email: email(), password: 'long-enough', full_name: 'Same Name' });
      const b = await cp.api.post('/auth/register', { email: email(), password: 'long-enough', full_name: 'Same Name' });
      expect([a.status, b.status]).to.deep.equal([201, 201]);
      expect(a.body.org_id).to.not.equal(b.body.org_id);
    });

    for (const [what, body] of [
      ['a short password', { email: 'x@example.com', password: 'short', full_name: 'X' }],
      ['a malformed e-mail', { email: 'not-an-email', password: 'long-enough', full_name: 'X' }],
      ['a missing full_name', { email: 'x@example.com', password: 'long-enough' }],
      ['a number as password', { email: 'x@example.com', password: 12345678, full_name: 'X' }],
    ] as const) {
      it(`answers 400 for ${what}`, async () => {
        const r = await cp.api.post('/auth/register', body);
        expect(r.status).to.equal(400);
        expect(r.body.error).to.be.a('string').and.not.empty;
      });
    }
  });

  describe('POST /auth/login', () => {
    it('answers a JWT with user_id, tenant_id, email, iat and exp 72 h later', async () => {
      const u = await cp.api.newUser('login');
      const claims = JSON.parse(Buffer.from(u.token.split('.')[1]!, 'base64url').toString());
      expect(claims).to.include({ user_id: u.userId, tenant_id: u.orgId, email: u.email });
      expect(claims.exp - claims.iat).to.equal(72 * 3600);
      const header = JSON.parse(Buffer.from(u.token.split('.')[0]!, 'base64url').toString());
      expect(header.alg).to.equal('HS256');
    });

    it('answers 401 with the same message for an unknown e-mail and a wrong password', async () => {
      const u = await cp.api.newUser('wrongpw');
      const wrong = await cp.api.post('/auth/login', { email: u.email, password: 'not-the-password' });
      const unknown = await cp.api.post('/auth/login', { email: email(), password: 'whatever-long' });
      expect([wrong.status, unknown.status]).to.deep.equal([401, 401]);
      expect(wrong.body.error).to.equal(unknown.body.error);
    });

    it('rate limits repeated failures with 429 and Retry-After', async () => {
      const u = await cp.api.newUser('ratelimit');
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 12; i++) {
        const r = await cp.api.post('/auth/login', { email: u.email, password: 'wrong-password' });
        statuses.push(r.status);
        if (r.status === 429) retryAfter = r.headers.get('retry-after');
      }
      expect(statuses.slice(0, 10)).to.deep.equal(Array(10).fill(401));
      expect(statuses.at(-1)).to.equal(429);
      expect(Number(retryAfter)).to.be.greaterThan(0);
      const correct = await cp.api.post('/auth/login', { email: u.email, password: u.password });
      expect(correct.status, 'even the right password waits out the limit').to.equal(429);
    });
  });

  describe('bearer tokens', () => {
    const key = new TextEncoder().encode(SECRET);
    const claimsOf = (u: { userId: string; orgId: string; email: string }) => ({ user_id: u.userId, tenant_id: u.orgId, email: u.email });

    it('accepts the issued token', async () => {
      const u = await cp.api.newUser('bearer');
      expect((await cp.api.get('/services', u.token)).status).to.equal(200);
    });

    it('refuses a missing or malformed Authorization header with 401 JSON', async () => {
      for (const headers of [{} as Record<string, string>, { authorization: 'Basic abc' }, { authorization: 'Bearer' }, { authorization: 'Bearer not.a.jwt' }]) {
        const r = await cp.api.request('GET', '/services', { headers });
        expect(r.status).to.equal(401);
        expect(r.headers.get('content-type')).to.match(/^application\/json/);
        expect(r.body.error).to.be.a('string');
      }
    });

    it('refuses an expired token', async () => {
      const u = await cp.api.newUser('expired');
      const past = Math.floor(Date.now() / 1000) - 80 * 3600;
      const token = await new SignJWT(claimsOf(u)).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(past).setExpirationTime(past + 72 * 3600).sign(key);
      const r = await cp.api.get('/services', token);
      expect(r.status).to.equal(401);
      expect(r.body.error).to.match(/expired/);
    });

    it('refuses a tampered token', async () => {
      const u = await cp.api.newUser('tampered');
      const [h, p, s] = u.token.split('.');
      const claims = JSON.parse(Buffer.from(p!, 'base64url').toString());
      claims.tenant_id = '00000000-0000-4000-8000-000000000000';
      const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
      expect((await cp.api.get('/services', forged)).status).to.equal(401);
    });

    it('refuses a token signed with another secret', async () => {
      const u = await cp.api.newUser('othersecret');
      const token = await new SignJWT(claimsOf(u))
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode('another-secret-another-secret-another-secret'));
      expect((await cp.api.get('/services', token)).status).to.equal(401);
    });

    it('refuses an unsigned alg:none token', async () => {
      const u = await cp.api.newUser('algnone');
      const now = Math.floor(Date.now() / 1000);
      const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const token = `${enc({ alg: 'none', typ: 'JWT' })}.${enc({ ...claimsOf(u), iat: now, exp: now + 3600 })}.`;
      expect((await cp.api.get('/services', token)).status).to.equal(401);
    });
  });
});
