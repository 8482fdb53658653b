import { once } from 'node:events';
import http, { type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { refusedEndpoint } from '../../fixtures/peers/net-fixtures.js';
import { runProbe } from './probe-helpers.js';

interface Step {
  name: string;
  status_code?: number;
  ok: boolean;
  message: string;
  assertions?: { actual: string | null; passed: boolean }[];
  extracted?: string[];
}

/** A small API: POST /login with the right password gives a session id; /token trades it for a bearer token; /resource wants the token. */
function apiServer(): Server {
  const token = 'tok-7f3a';
  return http.createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(value));
    };
    if (req.method === 'POST' && req.url === '/api/login') {
      const { user, password } = JSON.parse(body || '{}') as { user?: string; password?: string };
      if (user === 'probe' && password === 's3cret!') return json(200, { session: 'sess-42' }, { 'x-request-id': 'r-1' });
      return json(401, { error: 'bad credentials' });
    }
    if (req.url === '/api/token' && req.headers.cookie === 'session=sess-42') return json(200, { access_token: token, expires_in: 60 });
    if (req.url === '/api/resource') {
      if (req.headers.authorization === `Bearer ${token}`) return json(200, { status: 'UP', items: [1, 2, 3] });
      return json(403, { error: 'forbidden' });
    }
    if (req.url === '/html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<input name="csrf" value="c-99">');
    }
    if (req.url === '/echo-csrf' && req.headers['x-csrf'] === 'c-99') return json(200, { ok: true });
    json(404, { error: 'not found' });
  });
}

describe('MULTISTEP prober', () => {
  let server: Server;
  let base: string;

  before(async () => {
    server = apiServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => {
    server.closeAllConnections();
    server.close();
  });

  // The control plane has already put the organization secret in place of {{secrets.API_PASSWORD}}.
  const flow = (password: string) => ({
    steps: [
      {
        name: 'log in',
        method: 'POST',
        url: '/api/login',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'probe', password }),
        assertions: [{ source: 'status', comparison: 'equals', target: 200 }],
        extract: [
          { name: 'session', source: 'json', property: '$.session' },
          { name: 'request_id', source: 'header', property: 'X-Request-Id' },
        ],
      },
      { name: 'get a token', url: '/api/token', headers: { cookie: 'session={{session}}' }, extract: [{ name: 'token', source: 'json', property: '$.access_token' }] },
      {
        name: 'read the resource',
        url: `${base}/api/resource`,
        headers: { authorization: 'Bearer {{token}}' },
        assertions: [
          { source: 'json', property: '$.status', comparison: 'equals', target: 'UP' },
          { source: 'json', property: '$.items[*]', comparison: 'greater_than', target: 0, match: 'all' },
        ],
      },
    ],
  });

  it('runs login → token → resource, passing values between steps, and reports each step', async () => {
    const r = await runProbe('MULTISTEP', `${base}/`, flow('s3cret!'));
    expect(r.message).to.match(/^3 steps passed in \d+ ms$/);
    expect(r.ok).to.equal(true);
    const steps = r.details.steps as unknown as Step[];
    expect(steps.map((s) => [s.name, s.status_code, s.ok])).to.deep.equal([
      ['log in', 200, true],
      ['get a token', 200, true],
      ['read the resource', 200, true],
    ]);
    expect(steps[0]!.extracted).to.deep.equal(['session', 'request_id']);
    expect(steps[2]!.assertions!.map((a) => [a.actual, a.passed])).to.deep.equal([
      ['UP', true],
      ['1', true],
    ]);
  });

  it('ends RED at the first failing step, naming it, and runs no later step', async () => {
    const r = await runProbe('MULTISTEP', `${base}/`, flow('wrong'));
    expect(r.ok).to.equal(false);
    expect(r.message).to.equal('step 1 "log in": status equals 200: got 401');
    const steps = r.details.steps as unknown as Step[];
    expect(steps).to.have.length(1);
    expect(steps[0]).to.include({ name: 'log in', status_code: 401, ok: false });
  });

  it('fails a step without assertions on a status outside 2xx/3xx, and an extraction that finds nothing', async () => {
    const forbidden = await runProbe('MULTISTEP', base, { steps: [{ name: 'no token', url: '/api/resource' }] });
    expect(forbidden.ok).to.equal(false);
    expect(forbidden.message).to.match(/^step 1 "no token": HTTP 403 in \d+ ms: unexpected status$/);
    const missing = await runProbe('MULTISTEP', base, { steps: [{ name: 'login', method: 'POST', url: '/api/login', body: '{"user":"probe","password":"s3cret!"}', extract: [{ name: 't', source: 'json', property: '$.token' }] }] });
    expect(missing.message).to.equal('step 1 "login": extract t: json $.token found nothing');
  });

  it('extracts with a regular expression first group from an HTML body', async () => {
    const r = await runProbe('MULTISTEP', base, {
      steps: [
        { name: 'form', url: '/html', extract: [{ name: 'csrf', source: 'body', property: 'name="csrf" value="([^"]+)"' }] },
        { name: 'post', url: '/echo-csrf', headers: { 'x-csrf': '{{csrf}}' } },
      ],
    });
    expect(r.message).to.match(/^2 steps passed/);
  });

  it('keeps the failing step\'s response with save_failed_response', async () => {
    const r = await runProbe('MULTISTEP', base, { save_failed_response: true, steps: [{ name: 'forbidden', url: '/api/resource' }] });
    expect(r.details.response).to.deep.include({ status: 403, body: '{"error":"forbidden"}' });
  });

  it('is RED with "connection refused" when the API is down, within the step', async () => {
    const r = await runProbe('MULTISTEP', `http://${await refusedEndpoint()}/`, { steps: [{ name: 'ping', url: '/health' }] });
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^step 1 "ping": .*connection refused/);
  });
});
