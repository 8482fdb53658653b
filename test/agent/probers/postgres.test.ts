import { expect } from 'chai';
import pg from 'pg';
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

describe('postgres prober query', () => {
  // A table of this run's own in the shared server's postgres database, with one row for the
  // read-only proofs, dropped at the end.
  const table = `outpost_probe_${process.pid}`;
  const admin = new pg.Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'postgres' });
  before(async () => {
    await admin.connect();
    await admin.query(`create table ${table} (value int)`);
    await admin.query(`insert into ${table} values (7)`);
  });
  after(async () => {
    await admin.query(`drop table if exists ${table}`);
    await admin.query(`drop table if exists ${table}_intruder`);
    await admin.end();
  });
  const query = (sql: string, more: Record<string, unknown> = {}) => runProbe('POSTGRES', POSTGRES, { username: 'postgres', query: sql, ...more });
  const resultOf = async (sql: string) => {
    const r = await query(sql);
    expect(r.ok, `${sql}: ${r.message}`).to.equal(true);
    return r.observed?.result;
  };

  it('observes the first column of the first row, and an assertion on it decides', async () => {
    const r = await query('select 42, 43', { assertions: [{ source: 'result', comparison: 'equals', target: 42 }] });
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^PostgreSQL query answered in \d+ ms$/);
    expect(r.observed).to.deep.equal({ result: 42 });
    expect(r.details.assertions).to.deep.equal([{ source: 'result', comparison: 'equals', target: 42, actual: '42', passed: true }]);
    const wrong = await query("select 'DOWN'", { assertions: [{ source: 'result', comparison: 'equals', target: 'UP' }] });
    expect(wrong).to.include({ ok: false, message: 'result equals "UP": got "DOWN"' });
  });

  it('gives text as text, numbers as numbers when exact, times as ISO text, bytes as text, and null without rows', async () => {
    expect(await resultOf("select 'hello'")).to.equal('hello');
    expect(await resultOf(`select count(*) from ${table}`)).to.equal(1);
    expect(await resultOf(`select avg(value) from ${table}`)).to.equal(7);
    expect(await resultOf('select 1.50::numeric')).to.equal(1.5);
    expect(await resultOf('select 123456789012345678901::numeric')).to.equal('123456789012345678901');
    expect(await resultOf("select timestamp '2024-05-01 12:30:00'")).to.equal('2024-05-01T12:30:00');
    expect(await resultOf("select timestamptz '2024-05-01 12:30:00+02'")).to.equal('2024-05-01T10:30:00.000Z');
    expect(await resultOf("select date '2024-05-01'")).to.equal('2024-05-01');
    expect(await resultOf("select '\\x4869'::bytea")).to.equal('Hi');
    expect(await resultOf('select true')).to.equal(true);
    expect(await resultOf(`select value from ${table} where value > 100`)).to.equal(null);
  });

  it('is RED with the server\'s message when the query fails', async () => {
    const r = await query('select * from no_such_table_here');
    expect(r).to.include({ ok: false, message: 'query failed: relation "no_such_table_here" does not exist' });
    expect(r).to.not.have.property('observed');
  });

  it('runs the query read-only: a write or a DDL statement fails and leaves nothing', async () => {
    const insert = await query(`insert into ${table} values (8)`);
    expect(insert).to.include({ ok: false, message: 'query failed: cannot execute INSERT in a read-only transaction' });
    const create = await query(`create table ${table}_intruder (a int)`);
    expect(create).to.include({ ok: false, message: 'query failed: cannot execute CREATE TABLE in a read-only transaction' });
    const left = await admin.query(`select (select count(*) from ${table})::int as readings, to_regclass($1) as intruder`, [`${table}_intruder`]);
    expect(left.rows).to.deep.equal([{ readings: 1, intruder: null }]);
  });

  it('does not run several statements, which could end the transaction', async () => {
    const r = await query(`commit; insert into ${table} values (9)`);
    expect(r).to.include({ ok: false, message: 'query failed: cannot insert multiple commands into a prepared statement' });
    expect((await admin.query(`select count(*)::int as n from ${table}`)).rows).to.deep.equal([{ n: 1 }]);
  });

  it('ends at the check\'s deadline when the query runs longer', async () => {
    const r = await runProbe('POSTGRES', POSTGRES, { username: 'postgres', query: 'select pg_sleep(5)' }, 800);
    expect(r).to.include({ ok: false, message: 'timed out after 800 ms' });
  });
});
