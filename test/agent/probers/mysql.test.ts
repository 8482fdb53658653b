import { expect } from 'chai';
import mysql from 'mysql2/promise';
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

describe('mysql prober query', () => {
  // A database of this run's own, on the shared server: a table with one row for the
  // read-only proofs, dropped at the end.
  const database = `outpost_probe_${process.pid}`;
  let admin: mysql.Connection;
  before(async () => {
    admin = await mysql.createConnection({ host: '127.0.0.1', port: 3306, user: 'root' });
    await admin.query(`CREATE DATABASE \`${database}\``);
    await admin.query(`CREATE TABLE \`${database}\`.readings (value INT)`);
    await admin.query(`INSERT INTO \`${database}\`.readings VALUES (7)`);
  });
  after(async () => {
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.end();
  });
  const query = (sql: string, more: Record<string, unknown> = {}) => runProbe('MYSQL', MARIADB, { username: 'root', password: '', database, query: sql, ...more });
  const resultOf = async (sql: string) => {
    const r = await query(sql);
    expect(r.ok, `${sql}: ${r.message}`).to.equal(true);
    return r.observed?.result;
  };

  it('observes the first column of the first row, and an assertion on it decides', async () => {
    const r = await query('select 42, 43', { assertions: [{ source: 'result', comparison: 'equals', target: 42 }] });
    expect(r.ok, r.message).to.equal(true);
    expect(r.message).to.match(/^MySQL \S+ query answered in \d+ ms$/);
    expect(r.observed).to.deep.equal({ result: 42 });
    expect(r.details.assertions).to.deep.equal([{ source: 'result', comparison: 'equals', target: 42, actual: '42', passed: true }]);
    const wrong = await query('select 42', { assertions: [{ source: 'result', comparison: 'equals', target: 43 }] });
    expect(wrong).to.include({ ok: false, message: 'result equals 43: got 42' });
  });

  it('gives text as text, numbers as numbers when exact, times as ISO text, bytes as text, and null without rows', async () => {
    expect(await resultOf("select 'hello'")).to.equal('hello');
    expect(await resultOf('select count(*) from readings')).to.equal(1);
    expect(await resultOf('select sum(value) / 2 from readings')).to.equal(3.5);
    expect(await resultOf('select 123456789012345678901')).to.equal('123456789012345678901');
    expect(await resultOf("select cast('2024-05-01 12:30:00' as datetime)")).to.equal('2024-05-01T12:30:00');
    expect(await resultOf("select cast('2024-05-01' as date)")).to.equal('2024-05-01');
    expect(await resultOf("select x'4869'")).to.equal('Hi');
    expect(await resultOf('select value from readings where value > 100')).to.equal(null);
  });

  it('is RED with the server\'s message when the query fails', async () => {
    const r = await query('select * from no_such_table');
    expect(r).to.include({ ok: false, message: `query failed: Table '${database}.no_such_table' doesn't exist` });
    expect(r).to.not.have.property('observed');
  });

  it('runs the query read-only: a write or a DDL statement fails and leaves nothing', async () => {
    const insert = await query('insert into readings values (8)');
    expect(insert).to.include({ ok: false, message: 'query failed: Cannot execute statement in a READ ONLY transaction' });
    const create = await query('create table intruder (a int)');
    expect(create).to.include({ ok: false, message: 'query failed: Cannot execute statement in a READ ONLY transaction' });
    const [rows] = await admin.query(`select (select count(*) from \`${database}\`.readings) as readings, (select count(*) from information_schema.tables where table_schema = ?) as tables`, [database]);
    expect(rows).to.deep.equal([{ readings: 1, tables: 1 }]);
  });

  it('does not run several statements, which could end the transaction', async () => {
    const r = await query('rollback; insert into readings values (9)');
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/^query failed: You have an error in your SQL syntax/);
  });

  it('ends at the check\'s deadline when the query runs longer', async () => {
    const r = await runProbe('MYSQL', MARIADB, { username: 'root', password: '', query: 'select sleep(5)' }, 800);
    expect(r).to.include({ ok: false, message: 'timed out after 800 ms' });
  });

  it('is RED when the query comes without credentials: the anonymous login is refused', async () => {
    const r = await runProbe('MYSQL', MARIADB, { query: 'select 1' });
    expect(r.ok).to.equal(false);
    expect(r.message).to.match(/Access denied for user 'outpost_probe'/);
  });
});
