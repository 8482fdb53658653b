// The error table of API.md: every failure is JSON {"error": ...} with the right status.
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import type { Reply, TestUser } from '../support/api-client.js';

function expectError(r: Reply, status: number): void {
  expect(r.status, r.text).to.equal(status);
  expect(r.headers.get('content-type')).to.match(/^application\/json/);
  expect(r.body.error).to.be.a('string').and.not.empty;
  expect(r.text).to.not.match(/\bat .+:\d+:\d+/); // no stack trace
}

describe('error answers', () => {
  let cp: TestControlPlane;
  let user: TestUser;
  before(async () => {
    cp = await startTestControlPlane();
    user = await cp.api.newUser('errors');
  });
  after(() => cp?.stop());

  it('answers 400 for malformed JSON', async () => {
    expectError(await cp.api.request('POST', '/services', { token: user.token, body: '{"name": ', headers: { 'content-type': 'application/json' } }), 400);
  });

  it('answers 400 for a JSON body that is not an object', async () => {
    expectError(await cp.api.request('POST', '/services', { token: user.token, json: ['a'] }), 400);
    expectError(await cp.api.request('POST', '/auth/login', { json: 'text' }), 400);
  });

  it('answers 400 for an id that is not a UUID', async () => {
    for (const path of ['/services/not-a-uuid', '/services/123/checks', '/services/x/uptime']) {
      expectError(await cp.api.get(path, user.token), 400);
    }
  });

  it('answers 404 for an unknown id and an unknown route', async () => {
    expectError(await cp.api.get(`/services/${randomUUID()}`, user.token), 404);
    expectError(await cp.api.get('/no-such-thing', user.token), 404);
  });

  it('answers 415 for a POST or PUT body that is not JSON', async () => {
    expectError(await cp.api.request('POST', '/services', { token: user.token, body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
    expectError(await cp.api.request('POST', '/auth/login', { body: 'hello', headers: { 'content-type': 'text/plain' } }), 415);
    expectError(await cp.api.request('PUT', `/services/${randomUUID()}`, { token: user.token, body: '<x/>', headers: { 'content-type': 'application/xml' } }), 415);
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), endpoint: 'http://127.0.0.1/', check_type: 'HTTP' });
    expectError(await cp.api.request('POST', '/services', { token: user.token, body: big, headers: { 'content-type': 'application/json' } }), 413);
  });

  it('answers 400 for a body that is not what its Content-Encoding says, 415 for an unknown encoding', async () => {
    const login = JSON.stringify({ email: user.email, password: user.password });
    for (const encoding of ['gzip', 'br', 'deflate']) {
      expectError(await cp.api.request('POST', '/auth/login', { body: login, headers: { 'content-type': 'application/json', 'content-encoding': encoding } }), 400);
    }
    expectError(await cp.api.request('POST', '/auth/login', { body: login, headers: { 'content-type': 'application/json', 'content-encoding': 'compress' } }), 415);
    const gzipped = await fetch(`${cp.baseUrl}/api/v1/auth/login`, { method: 'POST', body: gzipSync(login), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
    expect(gzipped.status, 'a real gzip body is read').to.equal(200);
  });

  it('answers 400 naming the field for text that cannot be stored (NUL, a lone surrogate), on every kind of route', async () => {
    const nul = await cp.api.post('/auth/register', { email: 'nul@example.com', password: 'long-enough', full_name: 'Ada\u0000' });
    expectError(nul, 400);
    expect(nul.body.details).to.deep.equal([{ path: 'full_name', message: 'contains a NUL character (U+0000)' }]);
    const surrogate = await cp.api.post('/services', { name: 'svc', endpoint: 'http://127.0.0.1/', check_type: 'HTTP', tags: ['a\ud800'] }, user.token);
    expectError(surrogate, 400);
    expect(surrogate.body.details[0].path).to.equal('tags.0');
    expectError(await cp.api.post('/alert-rules', { name: 'r', severity: 'info', condition: { 'x\u0000': 1 } }, user.token), 400);
    expectError(await cp.api.get('/services?tag=a%00b', user.token), 400);
    expectError(await cp.api.get('/status-pages/a%00b/public'), 400);
  });

  it('answers 400 for JSON nested deeper than any resource, and for an alert-rule condition over 8 KiB', async () => {
    const deep = `{"name":"r","severity":"info","condition":${'{"a":'.repeat(4500)}1${'}'.repeat(4500)}}`;
    expectError(await cp.api.request('POST', '/alert-rules', { token: user.token, body: deep, headers: { 'content-type': 'application/json' } }), 400);
    const big = await cp.api.post('/alert-rules', { name: 'r', severity: 'info', condition: { note: 'x'.repeat(1_000_000) } }, user.token);
    expectError(big, 400);
    expect(big.body.error).to.match(/condition must be at most 8 KiB/);
    expect((await cp.api.post('/alert-rules', { name: 'r', severity: 'info', condition: { note: 'kept' } }, user.token)).body.condition).to.deep.equal({ note: 'kept' });
  });

  it('answers 400 for a __proto__ key', async () => {
    const r = await cp.api.request('POST', '/services', { token: user.token, body: '{"__proto__":{"admin":true},"name":"x"}', headers: { 'content-type': 'application/json' } });
    expectError(r, 400);
    expect(r.body.error).to.match(/__proto__/);
  });

  it('answers 405 JSON for a method the route does not have, and for a method nobody knows', async () => {
    expectError(await cp.api.request('PATCH', '/health'), 405);
    expectError(await cp.api.request('PROPFIND', '/teams', { token: user.token }), 405);
  });

  it('answers 400 for timestamps outside 1970 to 9999, which no column would take back', async () => {
    const window = (starts_at: string, ends_at: string) => cp.api.post('/maintenance-windows', { name: 'w', starts_at, ends_at }, user.token);
    expectError(await window('0000-01-01T00:00:00Z', '2000-01-01T00:00:00Z'), 400);
    expectError(await window('0031-06-01T00:00:00Z', '2000-01-01T00:00:00Z'), 400);
    expectError(await window('2000-01-01T00:00:00Z', '9999-12-31T23:59:59-08:00'), 400);
    expect((await window('2030-01-01T00:00:00Z', '2030-01-02T00:00:00+02:00')).status).to.equal(201);
    const service = (await cp.api.post('/services', { name: 'ts', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, user.token)).body;
    expectError(await cp.api.get(`/services/${service.id}/checks?before=0000-01-01T00:00:00Z`, user.token), 400);
  });

  it('serves health as text and readiness as JSON', async () => {
    const health = await cp.api.get('/health');
    expect(health.status).to.equal(200);
    expect(health.headers.get('content-type')).to.match(/^text\/plain/);
    expect(health.text).to.equal('OK');
    const ready = await cp.api.get('/ready');
    expect(ready.status).to.equal(200);
    expect(ready.body).to.deep.equal({ status: 'ready' });
  });

  it('echoes a request id', async () => {
    const r = await cp.api.request('GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(r.headers.get('x-request-id')).to.equal('abc-123');
    expect((await cp.api.get('/health')).headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
