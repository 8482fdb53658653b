// Scoped, expiring API keys (issue 43): a key's scopes narrow its role on every route group,
// a request outside them is a 403 naming the scope, and an expired key is refused.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { apiOperations } from '../../control-plane/src/api-operations.js';
import { API_KEY_SCOPES, scopeOf } from '../../control-plane/src/features/api-keys/scopes.js';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';

const protectedOperations = apiOperations.filter((op) => !op.public && op.path !== '/backup');
/** A concrete path for an operation: every `:param` an unknown UUID. */
const concrete = (path: string) => path.replace(/:[a-z_]+/gi, () => randomUUID());

describe('API key scopes', function () {
  this.timeout(120_000);
  let cp: TestControlPlane;
  let owner: TestUser;

  before(async () => {
    cp = await startTestControlPlane();
    owner = await cp.api.newUser('scopes');
  });
  after(async () => {
    await cp?.stop();
  });

  const keyWith = async (scopes: string[] | null, extra: Record<string, unknown> = {}) => {
    const r = await cp.api.post('/api-keys', { name: `scoped ${randomUUID().slice(0, 6)}`, role: 'owner', scopes, ...extra }, owner.token);
    expect(r.status, r.text).to.equal(201);
    return r.body as { key: string; id: string; scopes: string[] | null; expires_at: string | null };
  };

  it('names a known scope for every protected route', () => {
    for (const op of protectedOperations) {
      expect(API_KEY_SCOPES, `${op.method.toUpperCase()} ${op.path}`).to.include(scopeOf(op.method.toUpperCase(), op.path));
    }
  });

  it('refuses every route group outside the scopes with a 403 naming the scope, and lets the scope through', async () => {
    const groups = new Map<string, typeof protectedOperations>();
    for (const op of protectedOperations) {
      const scope = scopeOf(op.method.toUpperCase(), op.path);
      groups.set(scope, [...(groups.get(scope) ?? []), op]);
    }
    // A key whose only scope is one no route here needs but its own read.
    const outsider = await keyWith(['profile:read']);
    for (const [scope, ops] of groups) {
      if (scope === 'profile:read') continue;
      const op = ops[0]!;
      const r = await cp.api.request(op.method.toUpperCase(), concrete(op.path), { token: outsider.key, json: op.method === 'get' || op.method === 'head' ? undefined : {} });
      expect(r.status, `${op.method} ${op.path}`).to.equal(403);
      expect(r.body.error, `${op.method} ${op.path}`).to.equal(`this API key lacks the "${scope}" scope`);
    }
    // With the scopes a request passes the scope check: what it answers then is the route's own.
    const everything = await keyWith([...groups.keys()]);
    for (const op of protectedOperations.filter((o) => o.method === 'get')) {
      const r = await cp.api.get(concrete(op.path), everything.key);
      expect(r.body?.error ?? '', `${op.method} ${op.path}`).not.to.match(/lacks the/);
    }
  });

  it('lets a write scope read its resource, and a read scope only read', async () => {
    const writer = await keyWith(['services:write']);
    const created = await cp.api.post('/services', { name: 'scoped', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, writer.key);
    expect(created.status, created.text).to.equal(201);
    expect((await cp.api.get(`/services/${created.body.id}`, writer.key)).status).to.equal(200);
    expect((await cp.api.post(`/services/${created.body.id}/check`, {}, writer.key)).body.error).to.equal('this API key lacks the "checks:run" scope');

    const reader = await keyWith(['services:read', 'metrics:read', 'checks:run']);
    expect((await cp.api.get(`/services/${created.body.id}`, reader.key)).status).to.equal(200);
    expect((await cp.api.get(`/services/${created.body.id}/uptime`, reader.key)).status).to.equal(200);
    const update = await cp.api.put(`/services/${created.body.id}`, { name: 'renamed' }, reader.key);
    expect(update.status).to.equal(403);
    expect(update.body.error).to.equal('this API key lacks the "services:write" scope');
    expect((await cp.api.post(`/services/${created.body.id}/check`, {}, reader.key)).status).not.to.equal(403);
  });

  it('answers scopes and expiry in the list, and refuses unknown scopes and past expiries', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const key = await keyWith(['services:read', 'alerts:write', 'services:read'], { expires_at: expiresAt });
    expect(key.scopes).to.deep.equal(['alerts:write', 'services:read']);
    expect(key.expires_at).to.equal(expiresAt);
    const listed = (await cp.api.get('/api-keys', owner.token)).body.find((k: { id: string }) => k.id === key.id);
    expect(listed).to.include({ expires_at: expiresAt, last_used_at: null });
    await cp.api.get('/alerts', key.key);
    const used = (await cp.api.get('/api-keys', owner.token)).body.find((k: { id: string }) => k.id === key.id);
    expect(used.last_used_at).to.be.a('string');
    expect((await cp.api.get('/api-keys/scopes', owner.token)).body).to.include.members(['checks:run', 'metrics:read', 'services:write']);

    for (const body of [{ scopes: ['services:delete'] }, { scopes: [] }, { scopes: 'services:read' }, { expires_at: new Date(Date.now() - 1000).toISOString() }, { expires_at: 'tomorrow' }]) {
      const r = await cp.api.post('/api-keys', { name: 'bad', ...body }, owner.token);
      expect(r.status, JSON.stringify(body)).to.equal(400);
      expect(r.body.error).to.match(/scope|expires_at/);
    }
  });

  it('does not let a scoped key make a key with more scopes than its own', async () => {
    const manager = await keyWith(['api-keys:write', 'services:read']);
    const wider = await cp.api.post('/api-keys', { name: 'wider', role: 'member' }, manager.key);
    expect(wider.status).to.equal(403);
    const widerScope = await cp.api.post('/api-keys', { name: 'wider', role: 'member', scopes: ['services:write'] }, manager.key);
    expect(widerScope.body.error).to.match(/services:write/);
    const narrower = await cp.api.post('/api-keys', { name: 'narrower', role: 'member', scopes: ['services:read'] }, manager.key);
    expect(narrower.status, narrower.text).to.equal(201);
  });

  it('refuses a key once it has expired', async () => {
    const key = await keyWith(null, { expires_at: new Date(Date.now() + 1_500).toISOString() });
    expect((await cp.api.get('/services', key.key)).status).to.equal(200);
    await delay(2_000);
    const r = await cp.api.get('/services', key.key);
    expect(r.status).to.equal(401);
    expect(r.body.error).to.equal('the API key has expired');
  });
});
