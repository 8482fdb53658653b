// Assertions and per-service thresholds end to end: a service created through the API, checked
// by the control plane's embedded agent against a real HTTP server on 127.0.0.1, its verdict
// read back from the check log and the service's status.
import { once } from 'node:events';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';

describe('check verdicts: assertions and thresholds', () => {
  let cp: TestControlPlane;
  let server: Server;
  let target: string;
  let user: TestUser;

  before(async function () {
    this.timeout(60_000);
    // /health answers DOWN in a 200; /slow?ms=N answers after N ms.
    server = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      // A login that takes the organization's secret, and a resource that takes the token it gives.
      if (url.pathname === '/login') {
        const ok = req.headers['x-api-key'] === 'k-31337';
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(ok ? { token: 't-42' } : { error: 'bad key' }));
      }
      if (url.pathname === '/resource') {
        const ok = req.headers.authorization === 'Bearer t-42';
        res.writeHead(ok ? 200 : 403, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(ok ? { orders: 3 } : { error: 'forbidden' }));
      }
      const respond = () => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-version': '2.4.1' });
        res.end(JSON.stringify({ status: url.pathname === '/health' ? 'DOWN' : 'UP', db: { latency_ms: 12 } }));
      };
      const delay = Number(url.searchParams.get('ms') ?? 0);
      if (delay > 0) setTimeout(respond, delay);
      else respond();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    cp = await startTestControlPlane({ embeddedAgent: true });
    user = await cp.api.newUser('verdicts');
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  });

  after(async () => {
    await cp?.stop();
    server?.closeAllConnections();
    server?.close();
  });

  async function createService(endpoint: string, options: Record<string, unknown>, timeout_seconds = 5) {
    const r = await cp.api.post('/services', { name: `svc ${endpoint} ${Math.random()}`, check_type: 'HTTP', endpoint, check_interval_seconds: 300, timeout_seconds, options }, user.token);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  }

  const firstCheck = (id: string) =>
    poll(async () => {
      const r = await cp.api.get(`/services/${id}/checks?limit=1`, user.token);
      return r.body?.[0];
    }, { what: `the first check of ${id}`, timeoutMs: 15_000 });

  it('turns a 200 whose JSON says DOWN RED, naming the assertion and what it saw', async () => {
    const id = await createService(`${target}/health`, {
      assertions: [
        { source: 'status', comparison: 'equals', target: 200 },
        { source: 'header', property: 'X-Version', comparison: 'matches', target: '^2\\.' },
        { source: 'json', property: '$.status', comparison: 'equals', target: 'UP' },
      ],
    });
    const check = await firstCheck(id);
    expect(check.status).to.equal('RED');
    expect(check.message).to.equal('json $.status equals "UP": got "DOWN"');
    expect(check.details.assertions).to.deep.equal([
      { source: 'status', comparison: 'equals', target: 200, actual: '200', passed: true },
      { source: 'header', property: 'X-Version', comparison: 'matches', target: '^2\\.', actual: '2.4.1', passed: true },
      { source: 'json', property: '$.status', comparison: 'equals', target: 'UP', actual: 'DOWN', passed: false },
    ]);
    expect((await cp.api.get(`/services/${id}`, user.token)).body.status).to.equal('RED');
  });

  it('keeps a service GREEN when every assertion holds', async () => {
    const id = await createService(`${target}/ok`, { assertions: [{ source: 'json', property: '$.db.latency_ms', comparison: 'less_than', target: 100 }] });
    const check = await firstCheck(id);
    expect(check.status).to.equal('GREEN');
    expect(check.details.assertions[0]).to.include({ actual: '12', passed: true });
  });

  it('is YELLOW past its own degraded_after_ms, and RED past fail_after_ms with a message saying so', async () => {
    const yellow = await firstCheck(await createService(`${target}/slow?ms=150`, { degraded_after_ms: 50 }));
    expect(yellow.status).to.equal('YELLOW');
    const red = await firstCheck(await createService(`${target}/slow?ms=150`, { degraded_after_ms: 20, fail_after_ms: 60 }));
    expect(red.status).to.equal('RED');
    expect(red.message).to.match(/slower than fail_after_ms \(\d+ ms > 60 ms\)$/);
  });

  it('stays GREEN past the default 1,000 ms line when degraded_after_ms allows it', async () => {
    const check = await firstCheck(await createService(`${target}/slow?ms=1100`, { degraded_after_ms: 5000 }));
    expect(check.response_time_ms).to.be.greaterThan(1000);
    expect(check.status).to.equal('GREEN');
  });

  it('runs a MULTISTEP login → token → resource flow with an organization secret, and follows the secret when it changes', async () => {
    const secret = await cp.api.post('/secrets', { name: 'API_KEY', value: 'k-31337' }, user.token);
    expect(secret.status, secret.text).to.equal(201);
    const r = await cp.api.post(
      '/services',
      {
        name: 'orders flow',
        check_type: 'MULTISTEP',
        endpoint: target,
        check_interval_seconds: 300,
        options: {
          steps: [
            { name: 'log in', method: 'POST', url: '/login', headers: { 'x-api-key': '{{secrets.API_KEY}}' }, extract: [{ name: 'token', source: 'json', property: '$.token' }] },
            { name: 'orders', url: '/resource', headers: { authorization: 'Bearer {{token}}' }, assertions: [{ source: 'json', property: '$.orders', comparison: 'greater_than', target: 0 }] },
          ],
        },
      },
      user.token,
    );
    expect(r.status, r.text).to.equal(201);
    // Saved and answered as written: the reference, never the value.
    expect(r.body.options.steps[0].headers['x-api-key']).to.equal('{{secrets.API_KEY}}');
    const check = await firstCheck(r.body.id);
    expect(check.status, check.message).to.equal('GREEN');
    expect(check.details.steps.map((s: { name: string; ok: boolean }) => [s.name, s.ok])).to.deep.equal([
      ['log in', true],
      ['orders', true],
    ]);
    expect(JSON.stringify(check.details)).not.to.include('k-31337');

    // A wrong value reaches the agent with the re-sent assignment: the next run fails at the login step.
    expect((await cp.api.put(`/secrets/${secret.body.id}`, { value: 'wrong' }, user.token)).status).to.equal(200);
    const failed = await poll(async () => {
      await cp.api.post(`/services/${r.body.id}/check`, {}, user.token);
      const latest = (await cp.api.get(`/services/${r.body.id}/checks?limit=1`, user.token)).body[0];
      return latest?.status === 'RED' && latest;
    }, { what: 'a run with the changed secret', timeoutMs: 15_000 });
    expect(failed.message).to.match(/^step 1 "log in": HTTP 401 in \d+ ms: unexpected status$/);
  });

  it('refuses assertions that cannot run, naming the field', async () => {
    const refused = async (options: Record<string, unknown>, path: string, check_type = 'HTTP') => {
      const r = await cp.api.post('/services', { name: 'bad', check_type, endpoint: check_type === 'HTTP' ? target : '127.0.0.1:80', options }, user.token);
      expect(r.status, JSON.stringify(options)).to.equal(400);
      expect(r.body.details.map((d: { path: string }) => d.path), JSON.stringify(r.body)).to.include(path);
    };
    await refused({ assertions: [{ source: 'status', comparison: 'equals', target: 200 }, { source: 'answers', comparison: 'exists' }] }, 'options.assertions.1.source');
    await refused({ assertions: [{ source: 'body', comparison: 'equals', target: 'x' }] }, 'options.assertions.0.source', 'SSH');
    await refused({ assertions: [{ source: 'body', comparison: 'contains' }] }, 'options.assertions.0.target');
    await refused({ assertions: [{ source: 'json', property: '$[', comparison: 'exists' }] }, 'options.assertions.0.property');
    await refused({ assertions: [{ source: 'body', comparison: 'matches', target: '(unclosed' }] }, 'options.assertions.0.target');
    await refused({ assertions: [{ source: 'body', comparison: 'matches', target: 'a'.repeat(513) }] }, 'options.assertions.0.target');
    await refused({ assertions: Array.from({ length: 51 }, () => ({ source: 'status', comparison: 'exists' })) }, 'options.assertions');
    await refused({ degraded_after_ms: 2000, fail_after_ms: 1000 }, 'options.fail_after_ms');
  });
});
