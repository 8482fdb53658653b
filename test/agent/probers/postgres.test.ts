import { expect } from 'chai';
import { tcpListener } from '../../fixtures/peers/net-fixtures.js';
import { poll } from '../../support/poll.js';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

// The PostgreSQL server of this machine (127.0.0.1:5432, trust authentication).
const POSTGRES = '127.0.0.1:5432';

describe('postgres prober', () => {
  it('is GREEN when the server answers the startup message', async () => {
    const r = await runProbe('POSTGRES', POSTGRES);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^PostgreSQL (accepted the startup|asks for)/);
    expect(r.details.startup_ms).to.be.a('number');
    expect(r.details.connect_ms).to.be.a('number');
    expect(r.details).to.have.property('tls');
  });

  it('is GREEN when the server refuses the startup with an ErrorResponse: it still speaks PostgreSQL', async () => {
    // A canned answer (no SSL, then FATAL), as a server whose pg_hba.conf rejects the agent gives.
    const fields = Buffer.from('SFATAL\0C28000\0Mno pg_hba.conf entry for host "127.0.0.1"\0\0');
    const length = Buffer.alloc(4);
    length.writeInt32BE(4 + fields.length);
    const rejecting = await tcpListener(Buffer.concat([Buffer.from('NE'), length, fields]));
    try {
      const r = await runProbe('POSTGRES', rejecting.endpoint);
      expect(r).to.include({ ok: true, message: 'PostgreSQL answered: no pg_hba.conf entry for host "127.0.0.1"' });
    } finally {
      await rejecting.close();
    }
  });

  it('logs in and runs SELECT 1 with credentials', async () => {
    const r = await runProbe('POSTGRES', POSTGRES, { username: 'postgres', password: 'unused-with-trust' });
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/login ok, SELECT 1/);
    expect(r.details.query_ms).to.be.a('number');
  });

  it('is RED with credentials the server refuses', async () => {
    const r = await runProbe('POSTGRES', POSTGRES, { username: 'no_such_role_here', password: 'x' });
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/no_such_role_here/);
  });

  it('ends at its timeout with credentials too, and leaves no socket open', async () => {
    const listener = await tcpListener();
    try {
      const r = await runProbe('POSTGRES', listener.endpoint, { username: 'postgres', password: 'x' }, 600);
      expect(r).to.include({ ok: false, message: 'timed out after 600 ms' });
      expect(listener.accepted()).to.equal(1);
      await poll(() => listener.open() === 0, { what: 'the probe to close its socket', timeoutMs: 3_000 });
    } finally {
      await listener.close();
    }
  });

  itFailsLikeAnyProtocol('POSTGRES', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^not a PostgreSQL server/ });
});
