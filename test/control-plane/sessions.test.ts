// Sessions (issue 43): every sign-in is a session its tokens name; ending one (here, on another
// replica, everywhere) refuses its tokens, its refresh token and its WebSocket within 5 s.
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import WebSocket from 'ws';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { requireServerDatabase } from '../support/test-database.js';

interface SignIn {
  token: string;
  refresh_token: string;
  session_id: string;
  org_id: string;
}

/** Within the bound: a replica that missed the news re-reads a session every 2 s. */
const REFUSED_WITHIN_MS = 5_000;

describe('sessions', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;

  before(async () => {
    cp = await startTestControlPlane();
  });
  after(async () => {
    await cp?.stop();
  });

  const signIn = async (user: TestUser, userAgent = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'): Promise<SignIn> => {
    const r = await cp.api.request('POST', '/auth/login', { json: { email: user.email, password: user.password }, headers: { 'user-agent': userAgent } });
    expect(r.status, r.text).to.equal(200);
    return r.body as SignIn;
  };
  const status = async (token: string) => (await cp.api.get('/services', token)).status;

  it('answers a login with its session, refresh token and expiry, and lists the sessions with their device', async () => {
    const user = await cp.api.newUser('sessions-list');
    const firefox = await signIn(user);
    expect(firefox.session_id).to.match(/^[0-9a-f-]{36}$/);
    expect(firefox.refresh_token).to.match(/^ors_/);
    const phone = await signIn(user, 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1');
    const list = await cp.api.get('/sessions', firefox.token);
    expect(list.status).to.equal(200);
    const mine = list.body as { id: string; device: string; current: boolean; method: string; address: string }[];
    const byId = new Map(mine.map((s) => [s.id, s]));
    expect(byId.get(firefox.session_id)).to.include({ device: 'Firefox on Linux', current: true, method: 'password', address: '127.0.0.1' });
    expect(byId.get(phone.session_id)).to.include({ device: 'Safari on iOS', current: false });
    const other = await cp.api.newUser('sessions-stranger');
    expect((await cp.api.get('/sessions', other.token)).body.map((s: { id: string }) => s.id)).not.to.include(firefox.session_id);
  });

  it('ends one session: its tokens and refresh token are refused, the others still work', async () => {
    const user = await cp.api.newUser('sessions-end');
    const [kept, ended] = [await signIn(user), await signIn(user)];
    expect((await cp.api.del(`/sessions/${ended.session_id}`, kept.token)).status).to.equal(204);
    expect(await status(ended.token)).to.equal(401);
    expect((await cp.api.get('/services', ended.token)).body.error).to.match(/session has ended/);
    expect((await cp.api.post('/auth/refresh', { refresh_token: ended.refresh_token })).status).to.equal(401);
    expect(await status(kept.token)).to.equal(200);
    // Someone else's session is not found, whoever asks.
    const stranger = await cp.api.newUser('sessions-end-stranger');
    expect((await cp.api.del(`/sessions/${kept.session_id}`, stranger.token)).status).to.equal(404);
    expect((await cp.api.del('/sessions/not-a-uuid', kept.token)).status).to.equal(400);
  });

  it('signs out the current session, and signs out everywhere (keeping this one when asked)', async () => {
    const user = await cp.api.newUser('sessions-everywhere');
    const signedOut = await signIn(user);
    expect((await cp.api.del('/sessions/current', signedOut.token)).status).to.equal(204);
    expect(await status(signedOut.token)).to.equal(401);

    const [here, there, elsewhere] = [await signIn(user), await signIn(user), await signIn(user)];
    const kept = await cp.api.del('/sessions?keep_current=true', here.token);
    expect(kept.status).to.equal(200);
    expect(kept.body.ended).to.be.at.least(2);
    expect(await status(there.token)).to.equal(401);
    expect(await status(elsewhere.token)).to.equal(401);
    expect(await status(here.token)).to.equal(200);
    // The first login's token (newUser) went too.
    expect(await status(user.token)).to.equal(401);
    expect((await cp.api.del('/sessions', here.token)).status).to.equal(200);
    expect(await status(here.token)).to.equal(401);
  });

  it('rotates the refresh token, and ends the session when an exchanged one comes back', async () => {
    const user = await cp.api.newUser('sessions-refresh');
    const first = await signIn(user);
    const renewed = await cp.api.post('/auth/refresh', { refresh_token: first.refresh_token });
    expect(renewed.status, renewed.text).to.equal(200);
    expect(renewed.body.session_id).to.equal(first.session_id);
    expect(renewed.body.refresh_token).not.to.equal(first.refresh_token);
    expect(await status(renewed.body.token)).to.equal(200);
    // The old refresh token used again is a stolen copy: the whole session ends.
    expect((await cp.api.post('/auth/refresh', { refresh_token: first.refresh_token })).status).to.equal(401);
    expect(await status(renewed.body.token)).to.equal(401);
    expect((await cp.api.post('/auth/refresh', { refresh_token: renewed.body.refresh_token })).status).to.equal(401);
    for (const body of [{}, { refresh_token: 42 }, { refresh_token: 'x', extra: 1 }]) {
      expect((await cp.api.post('/auth/refresh', body)).status).to.equal(400);
    }
    expect((await cp.api.post('/auth/refresh', { refresh_token: 'ors_unknown' })).status).to.equal(401);
  });

  it('refreshes into another organization of the user, and not into a foreign one', async () => {
    const owner = await cp.api.newUser('sessions-refresh-owner');
    const user = await cp.api.newUser('sessions-refresh-member');
    expect((await cp.api.post('/members', { email: user.email, role: 'viewer' }, owner.token)).status).to.equal(201);
    const session = await signIn(user);
    const moved = await cp.api.post('/auth/refresh', { refresh_token: session.refresh_token, org_id: owner.orgId });
    expect(moved.status, moved.text).to.equal(200);
    expect(moved.body.org_id).to.equal(owner.orgId);
    expect((await cp.api.get('/organization', moved.body.token)).body.id).to.equal(owner.orgId);
    const stranger = await cp.api.newUser('sessions-refresh-stranger');
    expect((await cp.api.post('/auth/refresh', { refresh_token: moved.body.refresh_token, org_id: stranger.orgId })).status).to.equal(403);
  });

  it("ends an organization token made by switching along with the session it came from", async () => {
    const owner = await cp.api.newUser('sessions-switch-owner');
    const user = await cp.api.newUser('sessions-switch');
    expect((await cp.api.post('/members', { email: user.email, role: 'member' }, owner.token)).status).to.equal(201);
    const session = await signIn(user);
    const switched = await cp.api.post(`/organizations/${owner.orgId}/token`, {}, session.token);
    expect(switched.status, switched.text).to.equal(200);
    expect(await status(switched.body.token)).to.equal(200);
    expect((await cp.api.del('/sessions/current', session.token)).status).to.equal(204);
    expect(await status(switched.body.token)).to.equal(401);
  });

  it('refuses tokens that name no session once their user signed out everywhere', async () => {
    const { SignJWT } = await import('jose');
    const user = await cp.api.newUser('sessions-minted');
    const iat = Math.floor(Date.now() / 1000) - 10;
    const minted = await new SignJWT({ user_id: user.userId, tenant_id: user.orgId, email: user.email })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(new TextEncoder().encode('outpost-test-secret-0123456789abcdefghijklmnop'));
    expect(await status(minted)).to.equal(200);
    expect((await cp.api.del('/sessions', user.token)).status).to.equal(200);
    expect(await status(minted)).to.equal(401);
  });

  it('has no sessions for API keys', async () => {
    const user = await cp.api.newUser('sessions-key');
    const key = await cp.api.keyWithRole(user, 'owner');
    for (const [method, path] of [['GET', '/sessions'], ['DELETE', '/sessions'], ['DELETE', '/sessions/current']] as const) {
      const r = await cp.api.request(method, path, { token: key });
      expect(r.status, `${method} ${path}`).to.equal(403);
    }
    expect(await status(key)).to.equal(200);
  });

  it('closes a WebSocket of an ended session', async () => {
    const user = await cp.api.newUser('sessions-ws');
    const session = await signIn(user);
    const socket = new WebSocket(`${cp.baseUrl.replace('http', 'ws')}/api/v1/ws?token=${encodeURIComponent(session.token)}`);
    try {
      await new Promise<void>((resolve, reject) => socket.once('open', () => resolve()).once('error', reject));
      const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
      expect((await cp.api.del('/sessions/current', session.token)).status).to.equal(204);
      const outcome = await Promise.race([closed, delay(REFUSED_WITHIN_MS).then(() => null)]);
      expect(outcome, 'closed within 5 s').to.deep.include({ reason: 'the session has ended' });
    } finally {
      socket.terminate();
    }
  });
});

describe('sessions on two replicas', function () {
  this.timeout(60_000);
  let a: TestControlPlane;
  let b: TestControlPlane;

  before(async function () {
    await requireServerDatabase(this, 'a session per replica for the cluster bus to listen on');
    a = await startTestControlPlane();
    b = await startTestControlPlane();
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('refuses on the other replica, at once, a session ended on one', async () => {
    const user = await a.api.newUser('replica-sessions');
    const login = await b.api.post('/auth/login', { email: user.email, password: user.password });
    const token = login.body.token as string;
    expect((await b.api.get('/services', token)).status).to.equal(200);
    expect((await a.api.del(`/sessions/${login.body.session_id}`, user.token)).status).to.equal(204);
    // The replica that answered knew before answering: no wait.
    expect((await b.api.get('/services', token)).status).to.equal(401);
  });

  it('refuses within 5 s even when the other replica missed the message', async () => {
    const user = await a.api.newUser('replica-sessions-missed');
    const login = await b.api.post('/auth/login', { email: user.email, password: user.password });
    const token = login.body.token as string;
    expect((await b.api.get('/services', token)).status).to.equal(200);
    // Ended behind the replicas' backs, as if the message were lost.
    await sql('update sessions set ended_at = now() where id = $1', [login.body.session_id]);
    await poll(async () => (await b.api.get('/services', token)).status === 401, { what: 'the ended session refused within 5 s', timeoutMs: REFUSED_WITHIN_MS });
  });

  it('refuses everywhere every session of a user who signed out everywhere', async () => {
    const user = await a.api.newUser('replica-sessions-all');
    const onB = await b.api.post('/auth/login', { email: user.email, password: user.password });
    expect((await b.api.get('/services', onB.body.token)).status).to.equal(200);
    expect((await a.api.del('/sessions', user.token)).status).to.equal(200);
    expect((await b.api.get('/services', onB.body.token)).status).to.equal(401);
  });
});
