import { expect } from 'chai';
import { itFailsLikeAnyProtocol, runProbe } from './probe-helpers.js';

// The MariaDB server of this machine (127.0.0.1:3306, root without a password).
const MARIADB = '127.0.0.1:3306';

describe('mysql prober', () => {
  it('is GREEN on the server greeting, even though the anonymous login is refused', async () => {
    const r = await runProbe('MARIADB', MARIADB);
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^MySQL greeting received/);
  });

  it('logs in and runs SELECT 1 with credentials', async () => {
    const r = await runProbe('MYSQL', MARIADB, { username: 'root', password: '' });
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/login ok, SELECT 1/);
  });

  it('is RED when the credentials are refused', async () => {
    const r = await runProbe('MYSQL', MARIADB, { username: 'root', password: 'wrong-password' });
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/Access denied/);
  });

  itFailsLikeAnyProtocol('MYSQL', 'HTTP/1.1 400 Bad Request\r\n\r\n');
});
