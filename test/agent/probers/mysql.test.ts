import { expect } from 'chai';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

// The MariaDB server of this machine (127.0.0.1:3306, root without a password).
const MARIADB = '127.0.0.1:3306';

describe('mysql prober', () => {
  it('is GREEN on the server greeting, with its version, even though the anonymous login is refused', async () => {
    const r = await runProbe('MARIADB', MARIADB);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^MySQL \d+\.\d+\.\d+-MariaDB\S* greeting received in \d+ ms \(login refused: Access denied/);
    expect(r.details.server_version).to.match(/^\d+\.\d+\.\d+-MariaDB/);
    for (const phase of ['connect_ms', 'banner_ms', 'handshake_ms']) expect(r.details[phase], phase).to.be.a('number');
  });

  it('logs in and runs SELECT 1 with credentials', async () => {
    const r = await runProbe('MYSQL', MARIADB, { username: 'root', password: '' });
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/login ok, SELECT 1/);
    expect(r.details.query_ms).to.be.a('number');
  });

  it('is RED when the credentials are refused, or the database does not exist', async () => {
    const denied = await runProbe('MYSQL', MARIADB, { username: 'root', password: 'wrong-password' });
    expect(denied.ok).to.equal(false);
    expect(denied.message).to.match(/Access denied/);
    const noDatabase = await runProbe('MYSQL', MARIADB, { username: 'root', password: '', database: 'no_such_database_here' });
    expect(noDatabase.ok).to.equal(false);
    expect(noDatabase.message).to.match(/no_such_database_here/);
  });

  itFailsLikeAnyProtocol('MYSQL', { otherProtocol: 'HTTP/1.1 400 Bad Request\r\n\r\n', otherProtocolMessage: /^not a MySQL server \(unexpected greeting\)$/ });
});
