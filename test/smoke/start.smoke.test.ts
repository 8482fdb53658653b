// Smoke: the product as `npm start` runs it (embedded agent; embedded database unless
// TEST_DATABASE_URL is set): register, create a service, watch it turn GREEN, then RED.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';

describe('smoke: control plane with its embedded agent', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;
  let target: http.Server;
  let answer = 200;

  before(async () => {
    target = http.createServer((_req, res) => res.writeHead(answer).end('hi'));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    cp = await startTestControlPlane({ embeddedAgent: true, ownEmbeddedDatabase: !process.env.TEST_DATABASE_URL });
  });
  after(async () => {
    await cp?.stop();
    target?.closeAllConnections();
    await new Promise((r) => target?.close(r));
  });

  it('checks a new service at once and follows the target from GREEN to RED', async () => {
    const u = await cp.api.newUser('smoke');
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    const created = await cp.api.post('/services', { name: 'smoke', endpoint: url, check_type: 'http', check_interval_seconds: 3600 }, u.token);
    expect(created.status, created.text).to.equal(201);
    const id = created.body.id;
    await poll(async () => (await cp.api.get(`/services/${id}`, u.token)).body.status === 'GREEN', { what: 'GREEN', timeoutMs: 15_000 });
    answer = 500;
    expect((await cp.api.post(`/services/${id}/check`, undefined, u.token)).status).to.equal(202);
    await poll(async () => (await cp.api.get(`/services/${id}`, u.token)).body.status === 'RED', { what: 'RED', timeoutMs: 15_000 });
    const log = (await cp.api.get(`/services/${id}/checks`, u.token)).body;
    expect(log[0]).to.include({ status: 'RED', location: 'local' });
  });
});
