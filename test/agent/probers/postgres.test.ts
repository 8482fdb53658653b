import { expect } from 'chai';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

// The PostgreSQL server of this machine (127.0.0.1:5432, trust authentication).
const POSTGRES = '127.0.0.1:5432';

describe('postgres prober', () => {
  it('is GREEN when the server answers the startup message', async () => {
    const r = await runProbe('POSTGRES', POSTGRES);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^PostgreSQL /);
    expect(r.details.startup_ms).to.be.a('number');
    expect(r.details).to.have.property('tls');
  });

  it('is GREEN for an unknown role without credentials: the server still speaks PostgreSQL', async () => {
    const r = await runProbe('POSTGRESQL', POSTGRES, { database: 'no_such_database_here' });
    expect(r.ok, r.message).to.equal(true);
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

  itFailsLikeAnyProtocol('POSTGRES', 'HTTP/1.1 400 Bad Request\r\n\r\n');
});
