// API keys as credentials for REST and WebSocket, with their role, until revoked.
import { expect } from 'chai';
import WebSocket from 'ws';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { sql } from '../support/sql.js';

function wsStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => (socket.terminate(), resolve(101)));
    socket.once('unexpected-response', (_q, res) => (res.resume(), resolve(res.statusCode ?? 0)));
    socket.once('error', reject);
  });
}

describe('API keys', () => {
  let cp: TestControlPlane;
  before(async () => {
    cp = await startTestControlPlane();
  });
  after(() => cp?.stop());

  const createKey = async (token: string, body: Record<string, unknown>) => cp.api.post('/api-keys', body, token);

  it('returns the secret once, lists keys by prefix, and works as a bearer credential until revoked', async () => {
    const u = await cp.api.newUser('keys');
    const created = await createKey(u.token, { name: 'ci', role: 'member' });
    expect(created.status, created.text).to.equal(201);
    const key: string = created.body.key;
    expect(key).to.match(/^op_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    expect(created.body.prefix).to.equal(key.slice(0, 15));
    const listed = (await cp.api.get('/api-keys', u.token)).body;
    expect(listed).to.have.length(1);
    expect(JSON.stringify(listed)).to.not.include(key);
    const one = await cp.api.get(`/api-keys/${created.body.id}`, u.token);
    expect(one.status, one.text).to.equal(200);
    expect(one.body).to.deep.equal(listed[0]);
    expect((await cp.api.get('/api-keys/00000000-0000-4000-8000-000000000000', u.token)).status).to.equal(404);

    expect((await cp.api.get('/services', key)).status).to.equal(200);
    const made = await cp.api.post('/services', { name: 'by-key', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, key);
    expect(made.status, made.text).to.equal(201);
    expect(made.body.organization_id).to.equal(u.orgId);
    const ws = `${cp.baseUrl.replace('http', 'ws')}/api/v1/ws?token=${encodeURIComponent(key)}`;
    expect(await wsStatus(ws)).to.equal(101);
    expect((await cp.api.get('/api-keys', u.token)).body[0].last_used_at).to.be.a('string');

    expect((await cp.api.del(`/api-keys/${created.body.id}`, u.token)).status).to.equal(204);
    expect((await cp.api.get('/services', key)).status).to.equal(401);
    expect(await wsStatus(ws)).to.equal(401);
  });

  it("acts with the key's role: a viewer key reads but cannot write", async () => {
    const u = await cp.api.newUser('keys-viewer');
    const key = (await createKey(u.token, { name: 'dashboard', role: 'viewer' })).body.key;
    expect((await cp.api.get('/services', key)).status).to.equal(200);
    expect((await cp.api.post('/services', { name: 'x', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, key)).status).to.equal(403);
  });

  it('cannot create keys above its own role, and members cannot manage keys at all', async () => {
    const u = await cp.api.newUser('keys-escalate');
    const admin = (await createKey(u.token, { name: 'admin', role: 'admin' })).body.key;
    expect((await createKey(admin, { name: 'owner', role: 'owner' })).status).to.equal(403);
    expect((await createKey(admin, { name: 'member', role: 'member' })).status).to.equal(201);
    const member = (await createKey(u.token, { name: 'member', role: 'member' })).body.key;
    expect((await createKey(member, { name: 'x', role: 'viewer' })).status).to.equal(403);
    expect((await cp.api.get('/api-keys', member)).status).to.equal(403);
  });

  it("stays in its own organization even when its creator belongs to others", async () => {
    const u = await cp.api.newUser('keys-scope');
    const other = await cp.api.newUser('keys-scope-other');
    await sql(`insert into memberships (organization_id, user_id, role) values ($1, $2, 'owner')`, [other.orgId, u.userId]);
    const foreign = (await cp.api.post('/services', { name: 'theirs', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, other.token)).body;
    expect((await cp.api.get(`/services/${foreign.id}`, u.token)).status, 'the JWT of a member sees it').to.equal(200);
    const key = (await createKey(u.token, { name: 'scoped', role: 'owner' })).body.key;
    expect((await cp.api.get(`/services/${foreign.id}`, key)).status).to.equal(404);
    expect((await cp.api.post('/services', { name: 'x', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', organization_id: other.orgId }, key)).status).to.equal(403);
  });

  it('refuses a malformed or unknown key with 401 and bad input with 400', async () => {
    const u = await cp.api.newUser('keys-bad');
    expect((await cp.api.get('/services', 'op_nothing')).status).to.equal(401);
    expect((await cp.api.get('/services', `op_AAAAAAAAAAAA_${'A'.repeat(43)}`)).status).to.equal(401);
    expect((await createKey(u.token, { name: 'x', role: 'god' })).status).to.equal(400);
    expect((await createKey(u.token, { role: 'viewer' })).status).to.equal(400);
  });
});
