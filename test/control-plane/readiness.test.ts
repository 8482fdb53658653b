import { expect } from 'chai';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { testDatabase } from '../support/test-database.js';

describe('readiness', () => {
  let cp: TestControlPlane;
  let proxy: TcpProxy;
  before(async () => {
    const db = new URL((await testDatabase()).url);
    proxy = await startTcpProxy(db.hostname, Number(db.port || 5432));
    db.host = `127.0.0.1:${proxy.port}`;
    cp = await startTestControlPlane({ env: { DATABASE_URL: db.toString() } });
  });
  after(async () => {
    proxy?.restore();
    await cp?.stop();
    await proxy?.close();
  });

  it('answers 503 "not ready" while the database is unreachable, and ready again after', async () => {
    expect((await cp.api.get('/ready')).status).to.equal(200);
    proxy.cut();
    const down = await cp.api.get('/ready');
    expect(down.status).to.equal(503);
    expect(down.body.status).to.equal('not ready');
    expect(down.body.error).to.be.a('string').and.not.empty;
    expect((await cp.api.get('/health')).status, 'liveness does not depend on the database').to.equal(200);
    proxy.restore();
    await poll(async () => (await cp.api.get('/ready')).status === 200, { what: 'ready again' });
  });
});
