// Rate limits that hurt the attacker, not the victim: failed logins counted per address and
// account (the owner elsewhere still gets in), registrations per address, the API budget per
// credential, and client addresses read from X-Forwarded-For only when a trusted proxy sent it.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Reply } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

const from = (address: string) => ({ 'x-forwarded-for': address });
const newEmail = () => `limits-${randomBytes(6).toString('hex')}@example.com`;
/** A fresh client address: counters live in the database, which outlasts one run. */
const newAddress = () => `10.${[...randomBytes(3)].join('.')}`;

function expect429(r: Reply): void {
  expect(r.status, r.text).to.equal(429);
  expect(Number(r.headers.get('retry-after'))).to.be.greaterThan(0);
  expect(r.body.error).to.be.a('string');
}

describe('rate limits', () => {
  describe('behind a trusted proxy', () => {
    let cp: TestControlPlane;
    before(async () => {
      cp = await startTestControlPlane({
        env: { TRUSTED_PROXIES: 'loopback', LOGIN_FAILURE_LIMIT: '3/600', LOGIN_ADDRESS_FAILURE_LIMIT: '6/600', REGISTRATION_RATE_LIMIT: '3/600', API_RATE_LIMIT: '5/600' },
      });
    });
    after(() => cp?.stop());

    // Counters live in the database every test shares, so each test speaks from addresses of its own.
    const userAt = async (address: string) => {
      const email = newEmail();
      const password = 'long-enough-pw';
      expect((await cp.api.request('POST', '/auth/register', { json: { email, password, full_name: 'L' }, headers: from(address) })).status).to.equal(201);
      const session = await login(email, password, address);
      expect(session.status).to.equal(200);
      return { email, password, token: session.body.token as string };
    };
    const login = (email: string, password: string, address: string) => cp.api.request('POST', '/auth/login', { json: { email, password }, headers: from(address) });
    const register = (address: string) => cp.api.request('POST', '/auth/register', { json: { email: newEmail(), password: 'long-enough-pw', full_name: 'L' }, headers: from(address) });

    it("locks the attacker's address out of the account, never the owner at another address", async () => {
      const [home, attacker] = [newAddress(), newAddress()];
      const owner = await userAt(home);
      for (let i = 0; i < 3; i++) expect((await login(owner.email, 'wrong-password', attacker)).status).to.equal(401);
      expect429(await login(owner.email, 'wrong-password', attacker));
      expect429(await login(owner.email, owner.password, attacker));
      expect((await login(owner.email, owner.password, home)).status, 'the owner, elsewhere').to.equal(200);
    });

    it('clears the count for an address and account after a success there', async () => {
      const home = newAddress();
      const u = await userAt(home);
      for (let i = 0; i < 2; i++) await login(u.email, 'typo-password', home);
      expect((await login(u.email, u.password, home)).status).to.equal(200);
      for (let i = 0; i < 2; i++) expect((await login(u.email, 'typo-password', home)).status).to.equal(401);
      expect((await login(u.email, u.password, home)).status).to.equal(200);
    });

    it('limits one address spraying many accounts', async () => {
      const sprayer = newAddress();
      for (let i = 0; i < 6; i++) expect((await login(newEmail(), 'guess-password', sprayer)).status).to.equal(401);
      expect429(await login(newEmail(), 'guess-password', sprayer));
      expect((await login(newEmail(), 'guess-password', newAddress())).status, 'another address').to.equal(401);
    });

    it('limits registrations per address', async () => {
      const busy = newAddress();
      for (let i = 0; i < 3; i++) expect((await register(busy)).status).to.equal(201);
      expect429(await register(busy));
      expect((await register(newAddress())).status).to.equal(201);
    });

    it('gives each credential its own API budget, told in RateLimit headers, and answers 429 past it', async () => {
      const u = await userAt(newAddress());
      const remaining: (string | null)[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await cp.api.get('/services', u.token);
        expect(r.status).to.equal(200);
        remaining.push(r.headers.get('ratelimit-remaining'));
      }
      expect(remaining).to.deep.equal(['4', '3', '2', '1', '0']);
      const refused = await cp.api.get('/services', u.token);
      expect429(refused);
      expect(refused.headers.get('ratelimit-limit')).to.equal('5');
      const other = await userAt(newAddress());
      expect((await cp.api.get('/services', other.token)).status, 'another user').to.equal(200);
      expect((await cp.api.get('/health')).status, 'public routes').to.equal(200);
    });
  });

  describe('without a trusted proxy', () => {
    let cp: TestControlPlane;
    before(async () => {
      cp = await startTestControlPlane({ env: { LOGIN_FAILURE_LIMIT: '2/600' } });
    });
    after(() => cp?.stop());

    it('ignores X-Forwarded-For, so a client cannot pick a fresh address per attempt', async () => {
      const u = await cp.api.newUser('limits-spoof');
      for (let i = 0; i < 2; i++) {
        expect((await cp.api.request('POST', '/auth/login', { json: { email: u.email, password: 'wrong-password' }, headers: from(newAddress()) })).status).to.equal(401);
      }
      expect429(await cp.api.request('POST', '/auth/login', { json: { email: u.email, password: 'wrong-password' }, headers: from(newAddress()) }));
    });
  });
});
