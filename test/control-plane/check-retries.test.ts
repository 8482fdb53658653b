// options.retries end to end (issue 39, item 1): a service created through the API, checked by
// the control plane's embedded agent against a real HTTP server on 127.0.0.1 that fails each
// path's first request, its stored result read back from the check log and the service.
import { once } from 'node:events';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';

describe('check retries', () => {
  let cp: TestControlPlane;
  let server: Server;
  let target: string;
  let user: TestUser;
  /** Requests per path: the first to each path is answered 503, the others 200. */
  const hits = new Map<string, number>();

  before(async function () {
    this.timeout(60_000);
    server = http.createServer((req, res) => {
      const seen = (hits.get(req.url!) ?? 0) + 1;
      hits.set(req.url!, seen);
      res.writeHead(seen === 1 ? 503 : 200).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    cp = await startTestControlPlane({ embeddedAgent: true });
    user = await cp.api.newUser('retries');
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
  });

  after(async () => {
    await cp?.stop();
    server?.closeAllConnections();
    server?.close();
  });

  const createService = (path: string, options: Record<string, unknown>) =>
    cp.api.post('/services', { name: `retries ${path}`, check_type: 'HTTP', endpoint: `${target}${path}`, check_interval_seconds: 300, timeout_seconds: 5, options }, user.token);

  it('stores GREEN, with both attempts in its details, the run of a service whose one retry passes after a failure', async () => {
    const created = await createService('/fails-once', { retries: 1, retry_interval_seconds: 1 });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.options).to.deep.include({ retries: 1, retry_interval_seconds: 1 });
    const check = await poll(async () => (await cp.api.get(`/services/${created.body.id}/checks?limit=1`, user.token)).body?.[0], { what: 'the first check', timeoutMs: 15_000 });
    expect(check.status, check.message).to.equal('GREEN');
    expect(hits.get('/fails-once')).to.equal(2);
    const attempts = check.details.attempts as { attempt: number; ok: boolean; message: string; started_at: string }[];
    expect(attempts.map((a) => [a.attempt, a.ok])).to.deep.equal([
      [1, false],
      [2, true],
    ]);
    expect(attempts[0]!.message).to.match(/^HTTP 503 /);
    // The check is dated by its first attempt.
    expect(Date.parse(check.checked_at)).to.equal(Date.parse(attempts[0]!.started_at));
    expect((await cp.api.get(`/services/${created.body.id}`, user.token)).body.status).to.equal('GREEN');
  });

  it('refuses retries above 10 and a retry_interval_seconds below 1, naming the option', async () => {
    for (const [options, path] of [
      [{ retries: 11 }, 'options.retries'],
      [{ retries: 1, retry_interval_seconds: 0 }, 'options.retry_interval_seconds'],
    ] as const) {
      const r = await createService('/refused', options);
      expect(r.status, JSON.stringify(options)).to.equal(400);
      expect(r.body.details.map((d: { path: string }) => d.path)).to.deep.equal([path]);
      expect(r.body.error).to.include(path.slice('options.'.length));
    }
  });
});
