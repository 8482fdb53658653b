import { expect } from 'chai';
import { refusedEndpoint, tcpListener } from '../../fixtures/peers/net-fixtures.js';
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
});
