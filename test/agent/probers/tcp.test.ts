import { expect } from 'chai';
import { refusedEndpoint, tcpListener } from '../../fixtures/peers/net-fixtures.js';
import { startStalledListener } from '../../fixtures/peers/stalled-listener.js';
import { poll } from '../../support/poll.js';
import { runProbe } from './probe-helpers.js';

describe('tcp prober', () => {
  it('is GREEN when the port accepts, with the connect time, and closes the socket', async () => {
    const listener = await tcpListener();
    try {
      const r = await runProbe('TELNET', listener.endpoint);
      expect(r.ok).to.equal(true);
      expect(r.message).to.match(/^connected in \d+ ms$/);
      expect(r.details.connect_ms).to.be.a('number');
      expect(r.details).to.not.have.property('dns_ms');
      await poll(() => listener.open() === 0, { what: 'the socket to close' });
    } finally {
      await listener.close();
    }
  });

  it('is RED with "connection refused" when nothing listens', async () => {
    const r = await runProbe('TCP', await refusedEndpoint());
    expect(r).to.include({ ok: false, message: 'connection refused' });
  });

  it('resolves a host name and reports the lookup time', async () => {
    const listener = await tcpListener();
    try {
      const r = await runProbe('TCP', `localhost:${listener.port}`);
      expect(r.ok, r.message).to.equal(true);
      expect(r.details.dns_ms).to.be.a('number');
    } finally {
      await listener.close();
    }
  });

  it('ends at its timeout when the connect never completes, and abandons the connect', async () => {
    const stalled = await startStalledListener();
    try {
      const started = Date.now();
      const r = await runProbe('TCP', stalled.endpoint, {}, 600);
      expect(r).to.include({ ok: false, message: 'timed out after 600 ms' });
      expect(Date.now() - started).to.be.within(550, 2_000);
      expect(r.details, 'no connect time for a connect that did not happen').to.not.have.property('connect_ms');
      await poll(() => stalled.pendingConnects() === 0, { what: 'the pending connect to be dropped', timeoutMs: 3_000 });
    } finally {
      await stalled.stop();
    }
  });
});
