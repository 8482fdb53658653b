// Single sign-on against a real OpenID provider (oidc-provider) on 127.0.0.1: the code flow
// with cookies, driven through the provider's login and consent forms; group mapping, just in
// time accounts, role changes and removal at the next sign-in; forged, replayed and tampered
// answers refused; "SSO required" with the owner's audited break-glass; https for issuers.
import { createHash, randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { expect } from 'chai';
import { isLoopbackHost, issuerProblem, normalizeIssuer } from '../../control-plane/src/features/sso/issuer-url.js';
import { admission, groupsOf, mappedRole } from '../../control-plane/src/features/sso/role-mapping.js';
import { CookieBrowser, freeLoopbackPort, startTestIdp, type TestIdp } from '../fixtures/oidc-idp.js';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';

const CLIENT = { client_id: 'outpost', client_secret: `outpost-secret-${randomBytes(6).toString('hex')}` };
const OTHER = { client_id: 'other-app', client_secret: 'other-app-secret', redirect_uris: ['http://127.0.0.1:9/other/callback'] };

/** An ID token for `client` straight from the provider (its own code flow), with the given nonce. */
async function idTokenFor(idp: TestIdp, client: typeof OTHER, login: string, nonce: string): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${idp.issuer}/auth`);
  for (const [k, v] of Object.entries({
    client_id: client.client_id, redirect_uri: client.redirect_uris[0]!, response_type: 'code', scope: 'openid email', nonce, state: 'other-state',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  })) url.searchParams.set(k, v);
  const landing = new URL(await new CookieBrowser().throughProvider(url.href, idp.issuer, login));
  const token = await fetch(`${idp.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: landing.searchParams.get('code')!, redirect_uri: client.redirect_uris[0]!, code_verifier: verifier }),
  });
  const body = (await token.json()) as { id_token?: string };
  if (!body.id_token) throw new Error(`no id_token for ${client.client_id}: ${JSON.stringify(body)}`);
  return body.id_token;
}

describe('single sign-on rules', () => {
  describe('issuerProblem', () => {
    it('accepts https anywhere and http on loopback addresses only', () => {
      for (const ok of ['https://idp.example.com', 'https://login.microsoftonline.com/tenant/v2.0', 'http://127.0.0.1:8080', 'http://127.9.9.9', 'http://localhost:8080/realms/a', 'http://[::1]:9000', 'http://[::ffff:127.0.0.1]:9000']) {
        expect(issuerProblem(ok), ok).to.equal(null);
      }
      for (const bad of ['http://idp.example.com', 'http://10.1.2.3', 'http://localhost.example.com', 'http://[::2]', 'ftp://idp.example.com', 'https://idp.example.com/?x=1', 'https://user:pw@idp.example.com', 'not a url']) {
        expect(issuerProblem(bad), bad).to.be.a('string');
      }
      expect(isLoopbackHost('LOCALHOST')).to.equal(true);
    });

    it('takes a discovery URL for its issuer', () => {
      expect(normalizeIssuer(' https://kc.example.com/realms/acme/.well-known/openid-configuration ')).to.equal('https://kc.example.com/realms/acme');
    });
  });

  describe('role mapping', () => {
    const settings = {
      roleMapping: [{ group: 'ops', role: 'member' as const }, { group: 'ops-admins', role: 'admin' as const }],
      defaultRole: null,
      allowedDomains: ['acme.test'],
      groupsClaim: 'groups',
    };

    it('gives the highest role of the groups held, else the default role', () => {
      expect(mappedRole(settings, ['ops', 'ops-admins'])).to.equal('admin');
      expect(mappedRole(settings, ['OPS'])).to.equal(null);
      expect(mappedRole({ ...settings, defaultRole: 'viewer' }, [])).to.equal('viewer');
    });

    it('reads the groups claim as a list, a single string, or a nested claim', () => {
      expect(groupsOf({ groups: ['a', 1, 'b'] }, 'groups')).to.deep.equal(['a', 'b']);
      expect(groupsOf({ groups: 'a' }, 'groups')).to.deep.equal(['a']);
      expect(groupsOf({ realm_access: { roles: ['x'] } }, 'realm_access.roles')).to.deep.equal(['x']);
      expect(groupsOf({}, 'groups')).to.deep.equal([]);
    });

    it('refuses a domain not allowed before looking at groups', () => {
      expect(admission(settings, 'a@other.test', { groups: ['ops'] })).to.deep.include({ allowed: false, because: 'domain' });
      expect(admission(settings, 'a@ACME.test', { groups: [] })).to.deep.include({ allowed: false, because: 'groups' });
      expect(admission(settings, 'a@acme.test', { groups: ['ops'] })).to.deep.equal({ allowed: true, role: 'member' });
    });
  });
});

describe('single sign-on', function () {
  this.timeout(60_000);
  const domain = `acme-${randomBytes(4).toString('hex')}.test`;
  const slug = `acme-${randomBytes(4).toString('hex')}`;
  let base: string;
  let cp: TestControlPlane;
  let idp: TestIdp;
  let owner: TestUser;
  let orgId: string;

  const settings = (overrides: Record<string, unknown> = {}) => ({
    issuer: idp.issuer,
    client_id: CLIENT.client_id,
    client_secret: CLIENT.client_secret,
    allowed_domains: [domain],
    role_mapping: [
      { group: 'ops', role: 'member' },
      { group: 'ops-admins', role: 'admin' },
      { group: 'auditors', role: 'viewer' },
    ],
    ...overrides,
  });

  /** Start → provider (as `login`) → callback; where the callback sent the browser. */
  const signIn = async (login: string, options: { browser?: CookieBrowser; redirect?: string; authorization?: (url: URL) => void } = {}) => {
    const browser = options.browser ?? new CookieBrowser();
    const start = `${base}/api/v1/auth/sso/${slug}/start${options.redirect ? `?redirect=${encodeURIComponent(options.redirect)}` : ''}`;
    const authorization = new URL(await browser.redirectOf(start));
    options.authorization?.(authorization);
    const callback = await browser.throughProvider(authorization.href, idp.issuer, login);
    const landing = new URL(await browser.redirectOf(callback));
    return { browser, authorization, callback, landing };
  };
  const exchange = (landing: URL) => cp.api.post('/auth/sso/exchange', { code: landing.searchParams.get('code') });
  /** A finished sign-in's session answer. */
  const session = async (login: string) => {
    const { landing } = await signIn(login);
    expect(landing.pathname, landing.searchParams.get('sso_error') ?? '').to.equal('/sign-in/sso');
    const answer = await exchange(landing);
    expect(answer.status, answer.text).to.equal(200);
    return answer.body as { token: string; user_id: string; org_id: string; redirect: string };
  };
  const roleOf = async (userId: string) => (await sql<{ role: string }>('select role from memberships where organization_id = $1 and user_id = $2', [orgId, userId]))[0]?.role ?? null;
  const auditRows = (action?: string) =>
    sql<{ action: string; resource: string; resource_id: string | null; actor_user_id: string | null; before: Record<string, unknown> | null; after: Record<string, unknown> | null }>(
      `select action, resource, resource_id, actor_user_id, before, after from audit_log where organization_id = $1 ${action ? 'and action = $2' : ''} order by id`,
      action ? [orgId, action] : [orgId],
    );

  before(async () => {
    const port = await freeLoopbackPort();
    base = `http://127.0.0.1:${port}`;
    cp = await startTestControlPlane({ env: { PORT: String(port), PUBLIC_URL: base } });
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const email = `owner@${domain}`;
    expect((await cp.api.post('/auth/register', { email, password, full_name: 'Acme Owner' })).status).to.equal(201);
    const login = await cp.api.post('/auth/login', { email, password });
    owner = { email, password, token: login.body.token, userId: login.body.user_id, orgId: login.body.org_id };
    orgId = owner.orgId;
    expect((await cp.api.put('/organization', { slug }, owner.token)).status).to.equal(200);
    idp = await startTestIdp([{ ...CLIENT, redirect_uris: [`${base}/api/v1/auth/sso/${slug}/callback`] }, OTHER]);
    idp.accounts.set('owner', { email, groups: [] });
  });
  after(async () => {
    await cp?.stop();
    await idp?.stop();
  });

  describe('settings', () => {
    it('refuses an http issuer that is not on a loopback address, and accepts https and loopback ones', async () => {
      for (const issuer of ['http://idp.example.com', 'http://10.0.0.7:8080/realms/acme', 'ftp://idp.example.com']) {
        const r = await cp.api.put('/organization/sso', settings({ issuer }), owner.token);
        expect(r.status, issuer).to.equal(400);
        expect(r.body.error).to.match(/issuer/);
        expect(r.body.error, issuer).to.match(/https/);
      }
      for (const issuer of ['https://idp.example.com/realms/acme', 'http://localhost:8080/realms/acme', 'http://127.0.0.2:9000', 'http://[::1]:9000']) {
        const r = await cp.api.put('/organization/sso', settings({ issuer }), owner.token);
        expect(r.status, `${issuer}: ${r.text}`).to.equal(200);
        expect(r.body.issuer).to.equal(issuer);
      }
    });

    it('keeps the client secret sealed: never answered, not in the database in the clear, not in the audit log', async () => {
      const saved = await cp.api.put('/organization/sso', settings(), owner.token);
      expect(saved.status, saved.text).to.equal(200);
      expect(saved.body).to.include({ client_secret_set: true, groups_claim: 'groups', default_role: null, required: false, enabled: true });
      expect(saved.body).to.not.have.property('client_secret');
      expect(saved.body.callback_url).to.equal(`${base}/api/v1/auth/sso/${slug}/callback`);
      expect(saved.text).to.not.include(CLIENT.client_secret);
      const [row] = await sql<{ client_secret_sealed: string }>('select client_secret_sealed from sso_settings where organization_id = $1', [orgId]);
      expect(row!.client_secret_sealed).to.match(/^enc:v2:/).and.not.include(CLIENT.client_secret);
      const audit = await sql<{ text: string }>('select coalesce(before::text, \'\') || coalesce(after::text, \'\') as text from audit_log where organization_id = $1', [orgId]);
      for (const r of audit) expect(r.text).to.not.include(CLIENT.client_secret);

      // Left out, the secret is kept.
      const { client_secret: _secret, ...withoutSecret } = settings();
      expect((await cp.api.put('/organization/sso', withoutSecret, owner.token)).status).to.equal(200);
      expect((await cp.api.get('/organization/sso', owner.token)).body.client_secret_set).to.equal(true);
    });

    it('refuses owner as a mapped role and a domain another organization claims', async () => {
      const asOwner = await cp.api.put('/organization/sso', settings({ role_mapping: [{ group: 'x', role: 'owner' }] }), owner.token);
      expect(asOwner.status).to.equal(400);
      expect(asOwner.body.error).to.match(/owner is never granted/);
      const other = await cp.api.newUser('sso-other');
      const taken = await cp.api.put('/organization/sso', settings({ allowed_domains: [domain] }), other.token);
      expect(taken.status).to.equal(409);
      expect(taken.body.error).to.include(domain);
    });

    it('is for admins: a member gets 403', async () => {
      const member = await cp.api.newUser('sso-member');
      expect((await cp.api.post('/members', { email: member.email, role: 'member' }, owner.token)).status).to.equal(201);
      const switched = await cp.api.post(`/organizations/${orgId}/token`, {}, member.token);
      expect((await cp.api.get('/organization/sso', switched.body.token)).status).to.equal(403);
      expect((await cp.api.put('/organization/sso', settings(), switched.body.token)).status).to.equal(403);
    });

    it('tests the connection: discovery, then the client credentials at the token endpoint', async () => {
      const good = await cp.api.post('/organization/sso/test', {}, owner.token);
      expect(good.status, good.text).to.equal(200);
      expect(good.body).to.include({ ok: true, issuer: idp.issuer, authorization_endpoint: `${idp.issuer}/auth`, credentials: 'valid' });
      const badSecret = await cp.api.post('/organization/sso/test', { client_secret: 'not-the-secret' }, owner.token);
      expect(badSecret.body).to.include({ ok: false, credentials: 'invalid' });
      expect(badSecret.body.message).to.match(/client id or secret/);
      const nowhere = await cp.api.post('/organization/sso/test', { issuer: `http://127.0.0.1:${await freeLoopbackPort()}` }, owner.token);
      expect(nowhere.body).to.include({ ok: false, credentials: 'unchecked' });
      expect(nowhere.body.message).to.match(/discovery/);
    });

    it('finds the organization by e-mail domain or slug', async () => {
      const byEmail = await cp.api.get(`/auth/sso/discover?email=${encodeURIComponent(`someone@${domain.toUpperCase()}`)}`);
      expect(byEmail.status).to.equal(200);
      expect(byEmail.body).to.deep.equal({ organization: slug, start_url: `${base}/api/v1/auth/sso/${slug}/start` });
      expect((await cp.api.get(`/auth/sso/discover?organization=${slug}`)).body.organization).to.equal(slug);
      expect((await cp.api.get('/auth/sso/discover?email=someone@nowhere.test')).status).to.equal(404);
      expect((await cp.api.get('/auth/sso/discover')).status).to.equal(400);
    });
  });

  describe('the code flow', () => {
    before(async () => {
      expect((await cp.api.put('/organization/sso', settings(), owner.token)).status).to.equal(200);
    });

    it('sends the browser to the provider with PKCE, state and nonce, binding them to an HttpOnly cookie', async () => {
      const browser = new CookieBrowser();
      const response = await browser.request(`${base}/api/v1/auth/sso/${slug}/start`);
      expect(response.status).to.equal(302);
      const cookie = response.headers.getSetCookie().find((c) => c.startsWith('outpost_sso='))!;
      expect(cookie).to.match(/httponly/i).and.match(/samesite=lax/i).and.match(/path=\/api\/v1\/auth\/sso/i);
      const url = new URL(response.headers.get('location')!);
      expect(url.origin + url.pathname).to.equal(`${idp.issuer}/auth`);
      expect(url.searchParams.get('code_challenge_method')).to.equal('S256');
      for (const p of ['state', 'nonce', 'code_challenge']) expect(url.searchParams.get(p)).to.have.length.above(20);
      expect(url.searchParams.get('redirect_uri')).to.equal(`${base}/api/v1/auth/sso/${slug}/callback`);
      expect(url.searchParams.get('scope')).to.equal('openid email profile groups');
      const [row] = await sql<{ n: string }>('select count(*) as n from sso_logins where state_hash = $1', [url.searchParams.get('state')]);
      expect(Number(row!.n), 'the state is kept hashed').to.equal(0);
    });

    it('creates the person just in time with the mapped role, and signs them in like a password would', async () => {
      idp.accounts.set('alice', { email: `alice@${domain}`, name: 'Alice Adams', groups: ['ops'] });
      const { landing, browser } = await signIn('alice', { redirect: '/alerts' });
      expect(landing.pathname).to.equal('/sign-in/sso');
      expect(browser.cookie('outpost_sso')).to.be.a('string');
      const answer = await exchange(landing);
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body).to.include({ org_id: orgId, redirect: '/alerts' });
      for (const field of ['token', 'refresh_token', 'session_id', 'expires_at']) expect(answer.body[field]).to.be.a('string');
      expect(await roleOf(answer.body.user_id)).to.equal('member');
      const me = await cp.api.get('/profile', answer.body.token);
      expect(me.body).to.include({ email: `alice@${domain}`, full_name: 'Alice Adams' });
      const sessions = await cp.api.get('/sessions', answer.body.token);
      expect(sessions.body.find((s: { current: boolean }) => s.current).method).to.equal('sso');
      // The code works once.
      expect((await exchange(landing)).status).to.equal(401);
      // No usable password.
      expect((await cp.api.post('/auth/login', { email: `alice@${domain}`, password: '!sso-only' })).status).to.equal(401);

      const audit = await auditRows();
      const mine = audit.filter((r) => r.actor_user_id === answer.body.user_id);
      expect(mine.map((r) => `${r.action} ${r.resource}`)).to.include.members(['create user', 'create member', 'sign_in session']);
      expect(mine.find((r) => r.resource === 'member')!.after).to.include({ role: 'member' });
    });

    it('sets the role from the groups at each sign-in, the highest group winning', async () => {
      idp.accounts.set('bruno', { email: `bruno@${domain}`, groups: ['auditors'] });
      const first = await session('bruno');
      expect(await roleOf(first.user_id)).to.equal('viewer');
      idp.accounts.set('bruno', { email: `bruno@${domain}`, groups: ['auditors', 'ops-admins', 'ops'] });
      const second = await session('bruno');
      expect(second.user_id).to.equal(first.user_id);
      expect(await roleOf(first.user_id)).to.equal('admin');
      const change = (await auditRows('update')).filter((r) => r.resource_id === first.user_id);
      expect(change.at(-1)).to.deep.include({ before: { role: 'viewer' }, after: { role: 'admin', source: 'sso' } });
    });

    it('removes a person no longer in any mapped group at the next sign-in, and ends their sessions', async () => {
      idp.accounts.set('carla', { email: `carla@${domain}`, groups: ['ops'] });
      const first = await session('carla');
      expect((await cp.api.get('/organization', first.token)).status).to.equal(200);
      idp.accounts.set('carla', { email: `carla@${domain}`, groups: ['marketing'] });
      const { landing } = await signIn('carla');
      expect(landing.pathname).to.equal('/sign-in');
      expect(landing.searchParams.get('sso_error')).to.match(/none of your groups/);
      expect(landing.searchParams.has('code')).to.equal(false);
      expect(await roleOf(first.user_id)).to.equal(null);
      await poll(async () => (await cp.api.get('/organization', first.token)).status === 401, { timeoutMs: 5_000, what: 'the removed person refused' });
      const removal = (await auditRows('delete')).find((r) => r.resource === 'member' && r.resource_id === first.user_id);
      expect(removal?.before).to.include({ role: 'member' });
    });

    it('lets people of no mapped group in with the default role when there is one', async () => {
      expect((await cp.api.put('/organization/sso', settings({ default_role: 'viewer' }), owner.token)).status).to.equal(200);
      try {
        idp.accounts.set('dora', { email: `dora@${domain}`, groups: [] });
        const answer = await session('dora');
        expect(await roleOf(answer.user_id)).to.equal('viewer');
      } finally {
        await cp.api.put('/organization/sso', settings(), owner.token);
      }
    });

    it('refuses an e-mail domain the organization does not allow, creating no one', async () => {
      idp.accounts.set('eve', { email: 'eve@elsewhere.test', groups: ['ops-admins'] });
      const { landing } = await signIn('eve');
      expect(landing.searchParams.get('sso_error')).to.match(/domain "elsewhere\.test" is not allowed/);
      expect(await sql('select id from users where email = $1', ['eve@elsewhere.test'])).to.have.length(0);
    });

    it('links a registered user with the same verified e-mail, and refuses an unverified one', async () => {
      const password = 'frank-password';
      const registered = await cp.api.post('/auth/register', { email: `frank@${domain}`, password, full_name: 'Frank' });
      idp.accounts.set('frank-unverified', { email: `frank@${domain}`, email_verified: false, groups: ['ops'] });
      const refused = await signIn('frank-unverified');
      expect(refused.landing.searchParams.get('sso_error')).to.match(/not say the address is verified/);
      idp.accounts.set('frank', { email: `frank@${domain}`, groups: ['ops'] });
      const answer = await session('frank');
      expect(answer.user_id).to.equal(registered.body.user_id);
      expect(await roleOf(answer.user_id)).to.equal('member');
      const [identity] = await sql<{ user_id: string }>('select user_id from user_identities where issuer = $1 and subject = $2', [idp.issuer, 'frank']);
      expect(identity!.user_id).to.equal(registered.body.user_id);
    });

    it('never changes an owner, whatever the groups say', async () => {
      const answer = await session('owner');
      expect(answer.user_id).to.equal(owner.userId);
      expect(await roleOf(owner.userId)).to.equal('owner');
    });
  });

  describe('refused answers', () => {
    it('refuses a forged callback (a state it never issued) without calling the provider', async () => {
      const browser = new CookieBrowser();
      await browser.redirectOf(`${base}/api/v1/auth/sso/${slug}/start`);
      const before = idp.tokenRequests();
      const landing = new URL(await browser.redirectOf(`${base}/api/v1/auth/sso/${slug}/callback?code=forged-code&state=forged-state&iss=${encodeURIComponent(idp.issuer)}`));
      expect(landing.pathname).to.equal('/sign-in');
      expect(landing.searchParams.get('sso_error')).to.match(/unknown, expired or already used/);
      expect(idp.tokenRequests()).to.equal(before);
    });

    it('refuses a callback from a browser that did not start the sign-in', async () => {
      idp.accounts.set('gina', { email: `gina@${domain}`, groups: ['ops'] });
      const starter = new CookieBrowser();
      const authorization = await starter.redirectOf(`${base}/api/v1/auth/sso/${slug}/start`);
      const callback = await starter.throughProvider(authorization, idp.issuer, 'gina');
      const landing = new URL(await new CookieBrowser().redirectOf(callback));
      expect(landing.searchParams.get('sso_error')).to.match(/unknown, expired or already used/);
    });

    it('refuses a replayed callback', async () => {
      idp.accounts.set('hugo', { email: `hugo@${domain}`, groups: ['ops'] });
      const { browser, callback, landing } = await signIn('hugo');
      expect(landing.pathname).to.equal('/sign-in/sso');
      const before = idp.tokenRequests();
      const replay = new URL(await browser.redirectOf(callback));
      expect(replay.pathname).to.equal('/sign-in');
      expect(replay.searchParams.get('sso_error')).to.match(/unknown, expired or already used/);
      expect(idp.tokenRequests()).to.equal(before);
    });

    it('refuses an ID token issued to another client (wrong audience)', async () => {
      idp.accounts.set('iris', { email: `iris@${domain}`, groups: ['ops'] });
      const browser = new CookieBrowser();
      const authorization = new URL(await browser.redirectOf(`${base}/api/v1/auth/sso/${slug}/start`));
      idp.replaceNextIdToken(await idTokenFor(idp, OTHER, 'iris', authorization.searchParams.get('nonce')!));
      const callback = await browser.throughProvider(authorization.href, idp.issuer, 'iris');
      const refused = new URL(await browser.redirectOf(callback));
      expect(refused.pathname).to.equal('/sign-in');
      expect(refused.searchParams.get("sso_error")).to.match(/aud/);
      expect(await sql('select id from users where email = $1', [`iris@${domain}`])).to.have.length(0);
    });

    it('refuses an ID token whose nonce is not the one this sign-in sent', async () => {
      idp.accounts.set('jane', { email: `jane@${domain}`, groups: ['ops'] });
      const { landing } = await signIn('jane', { authorization: (url) => url.searchParams.set('nonce', 'a-nonce-of-someone-else-entirely') });
      expect(landing.pathname).to.equal('/sign-in');
      expect(landing.searchParams.get("sso_error")).to.match(/nonce/);
      expect(await sql('select id from users where email = $1', [`jane@${domain}`])).to.have.length(0);
    });

    it('sends an unknown or disabled organization back to sign-in with a message', async () => {
      const landing = new URL(await new CookieBrowser().redirectOf(`${base}/api/v1/auth/sso/no-such-org-${randomBytes(3).toString('hex')}/start`), base);
      expect(landing.pathname).to.equal('/sign-in');
      expect(landing.searchParams.get('sso_error')).to.match(/not set up/);
    });
  });

  describe('SSO required', () => {
    let kim: { email: string; password: string; userId: string };
    let lena: TestUser;
    before(async () => {
      expect((await cp.api.put('/organization/sso', settings({ required: true }), owner.token)).status).to.equal(200);
      // A person whose only organization requires SSO, with a password (as a reset would give).
      idp.accounts.set('kim', { email: `kim@${domain}`, groups: ['ops'] });
      const answer = await session('kim');
      kim = { email: `kim@${domain}`, password: 'kim-password', userId: answer.user_id };
      await sql('update users set password_hash = $1 where id = $2', [await argon2.hash(kim.password), kim.userId]);
      // A person with an organization of their own, also a member here.
      lena = await cp.api.newUser('sso-lena');
      await sql('insert into memberships (organization_id, user_id, role) values ($1, $2, $3)', [orgId, lena.userId, 'member']);
    });
    after(async () => {
      await cp.api.put('/organization/sso', settings(), owner.token);
    });

    it('refuses a member\'s password with SSO_REQUIRED naming where to sign in', async () => {
      const r = await cp.api.post('/auth/login', { email: kim.email, password: kim.password });
      expect(r.status).to.equal(403);
      expect(r.body.code).to.equal('SSO_REQUIRED');
      expect(r.body.error).to.include(`${base}/api/v1/auth/sso/${slug}/start`);
      const failed = (await auditRows('sign_in_failed')).filter((row) => row.actor_user_id === kim.userId);
      expect(failed.at(-1)?.after).to.deep.equal({ method: 'password', reason: 'sso_required' });
    });

    it('refuses switching into it with a password session', async () => {
      const refused = await cp.api.post(`/organizations/${orgId}/token`, {}, lena.token);
      expect(refused.status).to.equal(403);
      expect(refused.body.code).to.equal('SSO_REQUIRED');
      expect((await cp.api.post('/organizations/' + lena.orgId + '/token', {}, lena.token)).status).to.equal(200);
    });

    it('keeps the owner\'s break-glass password, recorded in the audit log', async () => {
      const before = (await auditRows('break_glass')).length;
      const r = await cp.api.post('/auth/login', { email: owner.email, password: owner.password });
      expect(r.status, r.text).to.equal(200);
      const rows = await auditRows('break_glass');
      expect(rows).to.have.length(before + 1);
      expect(rows.at(-1)).to.include({ actor_user_id: owner.userId, resource: 'session' });
    });

    it('still signs members in through the provider', async () => {
      const answer = await session('kim');
      expect((await cp.api.get('/organization', answer.token)).status).to.equal(200);
    });
  });
});
