// Statements prepared by name on pooled connections: executed again with new values, and
// prepared again by another pool of the same database. The embedded database serves every
// connection from one session, where a name another connection prepared already exists.
import { expect } from 'chai';
import { openDatabase, type Database } from '../../control-plane/src/db/database.js';
import { pooledSql } from '../../control-plane/src/db/pooled-sql.js';
import { createLogger } from '../../control-plane/src/logger.js';
import { testDatabase } from '../support/test-database.js';

describe('pooled statements prepared by name', () => {
  const opened: Database[] = [];
  const open = async (prepare = true, connections?: number) => {
    const { url, poolSize } = await testDatabase();
    const db = await openDatabase({ url, embeddedDataDir: null, poolSize: connections ?? poolSize, logger: createLogger('silent') });
    opened.push(db);
    return pooledSql(db.knex(), { prepare });
  };
  after(() => Promise.all(opened.map((db) => db.close())));

  it('answers each call with its own values', async () => {
    const double = (await open()).prepared<{ doubled: number }>('double_it', 'select $1::int * 2 as doubled');
    for (const n of [1, 2, 3]) expect(await double([n])).to.deep.equal([{ doubled: n * 2 }]);
  });

  it('prepares the same statement again on the connections of another pool', async () => {
    const text = 'select $1::text as echoed';
    const first = (await open()).prepared<{ echoed: string }>('echo', text);
    const second = (await open()).prepared<{ echoed: string }>('echo', text);
    expect(await first(['one'])).to.deep.equal([{ echoed: 'one' }]);
    expect(await second(['two'])).to.deep.equal([{ echoed: 'two' }]);
  });

  it('prepares nothing when told not to (the embedded database it started itself)', async () => {
    // One connection, so that the count reads the session the statement ran in.
    const sql = await open(false, 1);
    const prepared = async () => (await sql.query<{ n: number }>(`select count(*)::int as n from pg_prepared_statements where name like 'plain_%'`, []))[0]!.n;
    const before = await prepared();
    expect(await sql.prepared<{ echoed: string }>('plain', 'select $1::text as echoed')(['three'])).to.deep.equal([{ echoed: 'three' }]);
    expect(await prepared()).to.equal(before);
  });
});
