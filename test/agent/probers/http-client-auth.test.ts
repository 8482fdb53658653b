import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { refusedEndpoint } from '../../fixtures/peers/net-fixtures.js';
import { poll } from '../../support/poll.js';
import { runProbe } from './probe-helpers.js';

interface TokenRequest {
  clientId: string;
  form: URLSearchParams;
}

/**
 * An OAuth2 authorization server and a resource it guards, in one node:http server: /token
 * grants client_credentials to any client whose secret is "secret-of-<client id>", and
 * /resource answers only a token it issued that has not expired (give or take a second).
 */
describe('http client authorization', () => {
  let server: http.Server;
  let base: string;
  let lifetimeSeconds = 3600;
  const tokenRequests: TokenRequest[] = [];
  const issued = new Map<string, number>();
  const authorizations: (string | undefined)[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        if (path === '/token') return token(req, body, res);
        authorizations.push(req.headers.authorization);
        const bearer = req.headers.authorization?.replace(/^Bearer /, '');
        // A second of grace after expiry, for a check that took its token just before renewing it on a slow machine.
        if (path === '/resource') return res.writeHead(bearer && (issued.get(bearer) ?? 0) + 1000 > Date.now() ? 200 : 401).end(bearer ? 'welcome' : 'who are you');
        if (path === '/static') return res.writeHead(bearer === 's3cret-token' ? 200 : 401).end();
        if (path === '/hop-away') return res.writeHead(302, { location: base.replace('127.0.0.1', 'localhost') + '/peek' }).end();
        if (path === '/hop-here') return res.writeHead(302, { location: '/resource' }).end();
        res.writeHead(200).end();
      });
    });
    const token = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => {
      const [id, secret] = Buffer.from(req.headers.authorization?.replace(/^Basic /, '') ?? '', 'base64')
        .toString()
        .split(':')
        .map(decodeURIComponent);
      const form = new URLSearchParams(body);
      tokenRequests.push({ clientId: id ?? '', form });
      if (!id || secret !== `secret-of-${id}` || form.get('grant_type') !== 'client_credentials') {
        return res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client', error_description: 'client authentication failed' }));
      }
      const accessToken = `token-${tokenRequests.length}`;
      issued.set(accessToken, Date.now() + lifetimeSeconds * 1000);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: accessToken, token_type: 'Bearer', expires_in: lifetimeSeconds }));
    };
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    tokenRequests.length = 0;
    authorizations.length = 0;
    lifetimeSeconds = 3600;
  });

  const grant = (clientId: string, extra: Record<string, unknown> = {}) => ({ token_url: `${base}/token`, client_id: clientId, client_secret: `secret-of-${clientId}`, ...extra });

  it('sends bearer_token as a Bearer Authorization, unless the headers set their own', async () => {
    expect((await runProbe('HTTP', `${base}/static`, { bearer_token: 's3cret-token' })).ok).to.equal(true);
    expect((await runProbe('HTTP', `${base}/static`)).ok).to.equal(false);
    const overridden = await runProbe('HTTP', `${base}/static`, { bearer_token: 's3cret-token', headers: { AUTHORIZATION: 'Bearer mine' } });
    expect(overridden.ok).to.equal(false);
    expect(authorizations).to.deep.equal(['Bearer s3cret-token', undefined, 'Bearer mine']);
  });

  it('asks the token endpoint once for its grant, and sends that token on every check', async () => {
    const options = { oauth2: grant('svc-cached', { scopes: ['read', 'write'], audience: 'https://api.example' }) };
    for (let i = 0; i < 3; i++) {
      const r = await runProbe('HTTP', `${base}/resource`, options);
      expect(r.ok, r.message).to.equal(true);
    }
    expect(tokenRequests).to.have.length(1);
    expect(Object.fromEntries(tokenRequests[0]!.form)).to.deep.equal({ grant_type: 'client_credentials', scope: 'read write', audience: 'https://api.example' });
    expect(authorizations).to.deep.equal(Array(3).fill('Bearer token-1'));
  });

  it('asks for a new token when the cached one is about to expire', async () => {
    lifetimeSeconds = 2;
    const options = { oauth2: grant('svc-short-lived') };
    expect((await runProbe('HTTP', `${base}/resource`, options)).ok).to.equal(true);
    // Each check passes only with a live token: the cached one, then a new one.
    await poll(
      async () => {
        const r = await runProbe('HTTP', `${base}/resource`, options);
        if (!r.ok) throw new Error(r.message);
        return tokenRequests.length === 2;
      },
      { what: 'a second token', timeoutMs: 6_000, intervalMs: 100 },
    );
    expect(new Set(authorizations)).to.deep.equal(new Set(['Bearer token-1', 'Bearer token-2']));
  });

  it('keeps a token per grant: another client, audience or secret asks again', async () => {
    const checks = [grant('svc-a'), grant('svc-a'), grant('svc-a', { audience: 'other' }), grant('svc-b'), { ...grant('svc-a'), client_secret: 'wrong' }];
    const results = [];
    for (const oauth2 of checks) results.push((await runProbe('HTTP', `${base}/resource`, { oauth2 })).ok);
    expect(results).to.deep.equal([true, true, true, true, false]);
    expect(tokenRequests.map((t) => t.clientId)).to.deep.equal(['svc-a', 'svc-a', 'svc-b', 'svc-a']);
  });

  it("fails the check naming the token endpoint and its answer, and does not reach the resource", async () => {
    const refused = await runProbe('HTTP', `${base}/resource`, { oauth2: { ...grant('svc-bad'), client_secret: 'nope' } });
    expect(refused).to.include({ ok: false, message: `OAuth2 token request to ${base}/token failed: HTTP 401 invalid_client (client authentication failed)` });
    const down = `http://${await refusedEndpoint()}/token`;
    const unreachable = await runProbe('HTTP', `${base}/resource`, { oauth2: { ...grant('svc-bad'), token_url: down } });
    expect(unreachable).to.include({ ok: false, message: `OAuth2 token request to ${down} failed: connection refused` });
    expect(authorizations).to.deep.equal([]);
  });

  it('does not send the token to another origin a redirect leads to', async () => {
    const options = { oauth2: grant('svc-redirected') };
    expect((await runProbe('HTTP', `${base}/hop-here`, options)).ok).to.equal(true);
    expect((await runProbe('HTTP', `${base}/hop-away`, options)).ok).to.equal(true);
    expect(authorizations).to.deep.equal(['Bearer token-1', 'Bearer token-1', 'Bearer token-1', undefined]);
  });
});
