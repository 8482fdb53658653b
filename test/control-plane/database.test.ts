// Statements reach PostgreSQL with their values bound apart, and a failed statement is
// logged without the values it carried.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { openDatabase, type Database } from '../../control-plane/src/db/database.js';
import { MembershipEntity } from '../../control-plane/src/features/organizations/membership.entity.js';
import { createLogger, serializeError } from '../../control-plane/src/logger.js';
import { testDatabase } from '../support/test-database.js';

describe('database access', () => {
  let db: Database;
  const sent: { sql: string; bindings: unknown[] }[] = [];
  before(async () => {
    const { url, poolSize } = await testDatabase();
    db = await openDatabase({ url, embeddedDataDir: null, poolSize, logger: createLogger('silent') });
    db.knex().on('query', (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] }));
  });
  after(() => db?.close());

  it("sends the ORM's and the repositories' values as bound parameters, never in the statement", async () => {
    const marker = `o'brien-${randomUUID()}`;
    sent.length = 0;
    await db.em().execute('select ?::text as x', [marker]);
    await db.em().findOne(MembershipEntity, { userId: randomUUID(), organizationId: randomUUID() });
    expect(sent).to.have.length(2);
    expect(sent[0]).to.deep.equal({ sql: 'select $1::text as x', bindings: [marker] });
    expect(sent[1]!.sql).to.match(/"user_id" = \$1/);
  });

  it('runs every pooled connection with JIT off (the control plane runs short statements only)', async () => {
    const shown = await Promise.all(Array.from({ length: 3 }, () => db.em().execute<{ jit: string }[]>('show jit')));
    expect(shown.map(([row]) => row?.jit)).to.deep.equal(['off', 'off', 'off']);
  });

  it('logs a failed statement with its code and constraint, without the values it carried', async () => {
    const email = `someone-${randomUUID()}@example.com`;
    const insert = () => db.em().execute('insert into users (id, email, full_name, password_hash) values (?, ?, ?, ?)', [randomUUID(), email, 'Secret Name', 'hash']);
    await insert();
    const err = await insert().then(
      () => undefined,
      (e: unknown) => e,
    );
    const logged = JSON.stringify(serializeError(err));
    expect(logged).to.include('23505');
    expect(logged).to.not.include(email).and.not.include('Secret Name');
  });
});
