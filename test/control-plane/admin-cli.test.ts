import { expect } from 'chai';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { runAdmin } from '../support/admin-process.js';
import { sql } from '../support/sql.js';
import { testDatabase } from '../support/test-database.js';

describe('admin cli', function () {
  this.timeout(60_000);
  let cp: TestControlPlane;
  before(async () => {
    cp = await startTestControlPlane();
  });
  after(() => cp?.stop());

  // Asynchronous on purpose: the embedded test database is served by this very process.
  const admin = async (...args: string[]) => {
    const run = await runAdmin({ DATABASE_URL: (await testDatabase()).url }, ...args);
    return { status: run.code, stdout: run.stdout, stderr: run.stderr };
  };

  it('sets the plan of an organization by slug, lifting the free cap', async () => {
    const u = await cp.api.newUser('admin-plan');
    const slug = (await sql<{ slug: string }>('select slug from organizations where id = $1', [u.orgId]))[0]!.slug;
    const r = await admin('set-plan', slug, 'unlimited');
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.include('unlimited');
    for (let i = 0; i < 6; i++) {
      expect((await cp.api.post('/services', { name: `s${i}`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, u.token)).status).to.equal(201);
    }
  });

  it('refuses an unknown plan or organization', async () => {
    expect((await admin('set-plan', 'whatever', 'platinum')).status).to.equal(2);
    expect((await admin('set-plan', 'no-such-organization-slug', 'free')).status).to.equal(1);
    expect((await admin('dance')).status).to.equal(2);
  });
});
