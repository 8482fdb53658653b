// A control plane with nothing to do does nothing on a short poll (issue 44, ADR 24): its
// background jobs sleep until work falls due, so over a quiet window the database hears only
// the replica lease's renewals. The statements are counted on the wire, by a proxy in front of
// PostgreSQL that reads the protocol's message types.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { isolatedDatabase, requireServerDatabase } from '../support/test-database.js';

/**
 * Counts the queries a client sends: a simple query ('Q'), or an extended one ending in its
 * Sync ('S'). A connection's first message (startup, or the TLS request) has no type byte.
 */
function queryCounter() {
  let queries = 0;
  const connection = () => {
    let pending = Buffer.alloc(0);
    let started = false;
    return (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const header = started ? 5 : 4;
        if (pending.length < header) return;
        const length = pending.readInt32BE(started ? 1 : 0) + (started ? 1 : 0);
        if (pending.length < length) return;
        if (started && (pending[0] === 0x51 || pending[0] === 0x53)) queries++;
        // An SSL request is answered with one byte, after which the startup message comes, untyped too.
        if (started || pending.readInt32BE(4) !== 80877103) started = true;
        pending = pending.subarray(length);
      }
    };
  };
  return { connection, count: () => queries };
}

describe('at rest', function () {
  this.timeout(60_000);
  let database: Awaited<ReturnType<typeof isolatedDatabase>> | undefined;
  let proxy: TcpProxy | undefined;
  let cp: TestControlPlane | undefined;
  after(async () => {
    await cp?.stop();
    await proxy?.close();
    await database?.drop();
  });

  it('sends PostgreSQL only its lease renewals while nothing happens, once its first rounds are done', async function () {
    await requireServerDatabase(this, 'a database of its own behind a counting proxy');
    database = await isolatedDatabase();
    const url = new URL(database.url);
    const counter = queryCounter();
    proxy = await startTcpProxy(url.hostname, Number(url.port || 5432), counter.connection);
    url.host = `127.0.0.1:${proxy.port}`;
    // No short job intervals here: the production timers.
    cp = await startTestControlPlane({ env: { DATABASE_URL: url.toString(), DATABASE_POOL_SIZE: String(database.poolSize) } });
    const owner = await cp.api.newUser('at-rest');
    // A service no agent checks (none is connected): its rows exist, nothing falls due.
    const service = await cp.api.post('/services', { name: 'unchecked', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, owner.token);
    expect(service.status, service.text).to.equal(201);
    // The jobs' first rounds at start, and what the requests above set off.
    await sleep(4_000);

    const before = counter.count();
    await sleep(10_000);
    const queries = counter.count() - before;
    // The lease is renewed every 2 s (5 in the window). Before issue 44, the rollup fold, the
    // heartbeat deadlines and the dispatcher each looked every second, escalations every 5 s:
    // about 50 statements in 10 s.
    expect(queries, `${queries} statements in 10 s`).to.be.at.most(10);
    expect(queries, 'the lease is still renewed').to.be.at.least(3);
  });
});
