import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { openDatabase } from '../../control-plane/src/db/database.js';
import { MIGRATIONS } from '../../control-plane/src/db/migrations/index.js';
import { GIB, MIB, type Sql } from '../../control-plane/src/features/doctor/check.js';
import { checkClock, measureDatabaseSkew } from '../../control-plane/src/features/doctor/clock.js';
import { checkDatabaseSettings, checkDatabaseVersion, readDatabaseFacts, type DatabaseFacts } from '../../control-plane/src/features/doctor/database-server.js';
import { checkDisk, diskSpace } from '../../control-plane/src/features/doctor/disk.js';
import { checkMigrations, readAppliedMigrations } from '../../control-plane/src/features/doctor/migrations.js';
import { checkResultsRetention, readResultsFacts } from '../../control-plane/src/features/doctor/results-retention.js';
import { checkSmtp } from '../../control-plane/src/features/doctor/smtp.js';
import { checkTlsFiles } from '../../control-plane/src/features/doctor/tls-files.js';
import { createLogger } from '../../control-plane/src/logger.js';
import { createTestCa, daysFromNow, type KeyPair, type TestCa } from '../fixtures/peers/test-ca.js';
import { startSmtpSink } from '../fixtures/smtp-sink.js';
import { runAdmin } from '../support/admin-process.js';
import { sql } from '../support/sql.js';
import { testDatabase } from '../support/test-database.js';

const NAMES = ['database', 'database settings', 'migrations', 'disk', 'clock', 'grpc tls', 'smtp', 'check results'];
const testSql: Sql = (text, params) => sql(text, params);

describe('admin doctor', function () {
  this.timeout(60_000);
  let dir: string;
  let ca: TestCa;

  before(async () => {
    const { url, poolSize } = await testDatabase();
    // Opening migrates: the test database is then what a started control plane leaves.
    await (await openDatabase({ url, embeddedDataDir: null, poolSize, logger: createLogger('silent') })).close();
    dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-doctor-'));
    ca = createTestCa();
  });
  after(() => {
    ca?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Writes a key pair to files named after `name`. */
  const files = (name: string, pair: KeyPair) => {
    const certFile = path.join(dir, `${name}.pem`);
    const keyFile = path.join(dir, `${name}.key`);
    writeFileSync(certFile, pair.cert);
    writeFileSync(keyFile, pair.key);
    return { certFile, keyFile };
  };
  const tlsEnv = (f: { certFile: string; keyFile: string }) => ({ GRPC_TLS_CERT: f.certFile, GRPC_TLS_KEY: f.keyFile });
  const leaf = (notBefore: Date, notAfter: Date) => ca.issue({ commonName: '127.0.0.1', altNames: 'IP:127.0.0.1', notBefore, notAfter });

  // Asynchronous on purpose: the embedded test database is served by this very process.
  const doctor = async (env: Record<string, string>, ...args: string[]) => {
    const run = await runAdmin({ DATABASE_URL: (await testDatabase()).url, DATA_DIR: dir, DATABASE_POOL_SIZE: '2', CHECK_RETENTION_DAYS: '3650', ...env }, 'doctor', ...args);
    return { status: run.code, stdout: run.stdout, stderr: run.stderr };
  };

  describe('the command', () => {
    it('prints one line per check and exits 0 on a healthy installation', async () => {
      const r = await doctor(tlsEnv(files('healthy', leaf(daysFromNow(-1), daysFromNow(90)))));
      expect(r.status, r.stdout + r.stderr).to.equal(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines.map((l) => l.slice(6, l.indexOf(':')))).to.deep.equal(NAMES);
      expect(lines.find((l) => l.includes('migrations:'))).to.match(/^ok {4}migrations: all \d+ applied/);
      expect(lines.find((l) => l.includes('grpc tls:'))).to.match(/^ok .*key matches/);
      expect(lines.find((l) => l.startsWith('warn'))).to.satisfy((l: string | undefined) => l === undefined || l.includes('. Fix: '));
    });

    it('prints JSON with --json, and exits 1 when a check fails', async () => {
      const r = await doctor(tlsEnv(files('expired-cli', leaf(daysFromNow(-30), daysFromNow(-1)))), '--json');
      expect(r.status, r.stderr).to.equal(1);
      expect(r.stderr).to.include('1 check(s) failed');
      const { checks } = JSON.parse(r.stdout) as { checks: { name: string; status: string; message: string; fix?: string }[] };
      expect(checks.map((c) => c.name)).to.deep.equal(NAMES);
      const tls = checks.find((c) => c.name === 'grpc tls')!;
      expect(tls.status).to.equal('fail');
      expect(tls.message).to.include('expired');
      expect(tls.fix).to.include('Renew');
    });

    it('fails without creating an embedded database where there is none', async () => {
      const empty = path.join(dir, 'empty-data-dir');
      const r = await doctor({ DATABASE_URL: '', DATA_DIR: empty });
      expect(r.status).to.equal(1);
      expect(r.stdout).to.match(/^fail  database: cannot open the database: no embedded database in .*empty-data-dir\/pgdata yet/m);
      expect(r.stdout).to.include('warn  migrations: not checked');
      expect(existsSync(path.join(empty, 'pgdata'))).to.equal(false);
    });
  });

  describe('database', () => {
    const facts = (over: Partial<DatabaseFacts> = {}): DatabaseFacts => ({ version: '16.4', versionNum: 160004, maxConnections: 100, reservedConnections: 3, timezone: 'UTC', ...over });

    it('warns below PostgreSQL 14 and names the embedded data folder', async () => {
      expect(checkDatabaseVersion(facts(), undefined).status).to.equal('ok');
      const old = checkDatabaseVersion(facts({ version: '13.9', versionNum: 130009 }), undefined);
      expect(old.status).to.equal('warn');
      expect(old.fix).to.include('14');
      expect(checkDatabaseVersion(facts(), '/data/pgdata').message).to.include('embedded PGlite').and.include('/data/pgdata');
      expect((await readDatabaseFacts(testSql)).versionNum).to.be.at.least(140000);
    });

    it('warns when max_connections cannot hold the pool', () => {
      expect(checkDatabaseSettings(facts(), 10, false).status).to.equal('ok');
      const tight = checkDatabaseSettings(facts({ maxConnections: 12 }), 10, false);
      expect(tight.status).to.equal('warn');
      expect(tight.fix).to.include('max_connections');
      expect(checkDatabaseSettings(facts({ maxConnections: 12 }), 10, true).status).to.equal('ok');
    });
  });

  describe('migrations', () => {
    const known = MIGRATIONS.map((m) => m.name);

    it('reads every migration as applied on a migrated database', async () => {
      expect(await readAppliedMigrations(testSql)).to.deep.equal(known);
      expect(checkMigrations(known, known).status).to.equal('ok');
    });

    it('fails on a pending migration, saying the control plane migrates at start', () => {
      const r = checkMigrations(known.slice(0, -1), known);
      expect(r.status).to.equal('fail');
      expect(r.message).to.include(known.at(-1)!);
      expect(r.fix).to.include('Start the control plane once');
    });

    it('fails on a migration this build does not know', () => {
      const r = checkMigrations([...known, '9999-future'], known);
      expect(r.status).to.equal('fail');
      expect(r.message).to.include('9999-future');
    });
  });

  describe('disk', () => {
    it('warns below 10% or 1 GiB and fails below 2% or 200 MiB', () => {
      const status = (free: number, total: number) => checkDisk('/data', { free, total }).status;
      expect(status(50 * GIB, 100 * GIB)).to.equal('ok');
      expect(status(9 * GIB, 100 * GIB)).to.equal('warn');
      expect(status(900 * MIB, 2 * GIB)).to.equal('warn');
      expect(status(1.5 * GIB, 100 * GIB)).to.equal('fail');
      expect(status(150 * MIB, 300 * MIB)).to.equal('fail');
      expect(checkDisk('/data', { free: 0, total: 100 * GIB }).fix).to.include('/data');
    });

    it('measures the file system of a folder not made yet', async () => {
      const space = await diskSpace(path.join(dir, 'not', 'yet'));
      expect(space.total).to.be.greaterThan(0);
      expect(space.free).to.be.within(0, space.total);
    });
  });

  describe('clock', () => {
    it("warns above 2 s between the database's clock and this host's", async () => {
      expect(checkClock(1_500).status).to.equal('ok');
      const skewed = checkClock(-2_500);
      expect(skewed.status).to.equal('warn');
      expect(skewed.message).to.include('2.50 s behind').and.include('not reported');
      const hostAhead = await measureDatabaseSkew(testSql, () => Date.now() + 5_000);
      expect(hostAhead).to.be.within(-6_000, -4_000);
    });
  });

  describe('grpc tls', () => {
    const now = () => new Date();

    it('passes a valid certificate with its key and a readable client CA', () => {
      const caFile = path.join(dir, 'client-ca.pem');
      writeFileSync(caFile, ca.cert);
      const r = checkTlsFiles({ ...files('valid', leaf(daysFromNow(-1), daysFromNow(90))), clientCaFile: caFile }, now());
      expect(r.status, r.message).to.equal('ok');
      expect(checkTlsFiles(undefined, now()).message).to.include('plaintext');
    });

    it('fails an expired certificate', () => {
      const r = checkTlsFiles(files('expired', leaf(daysFromNow(-30), daysFromNow(-1))), now());
      expect(r.status).to.equal('fail');
      expect(r.message).to.include('expired');
    });

    it('warns within 14 days of expiry', () => {
      const r = checkTlsFiles(files('expiring', leaf(daysFromNow(-1), daysFromNow(5))), now());
      expect(r.status).to.equal('warn');
      expect(r.message).to.match(/expires in [45] day/);
    });

    it('fails a key that does not match the certificate', () => {
      const one = files('one', leaf(daysFromNow(-1), daysFromNow(90)));
      const other = files('other', leaf(daysFromNow(-1), daysFromNow(90)));
      const r = checkTlsFiles({ certFile: one.certFile, keyFile: other.keyFile }, now());
      expect(r.status).to.equal('fail');
      expect(r.message).to.include('does not belong');
      expect(r.fix).to.include('GRPC_TLS_KEY');
    });

    it('fails a missing file or one that is not a certificate', () => {
      const valid = files('valid-2', leaf(daysFromNow(-1), daysFromNow(90)));
      expect(checkTlsFiles({ ...valid, certFile: path.join(dir, 'absent.pem') }, now()).message).to.include('cannot read');
      expect(checkTlsFiles({ ...valid, certFile: valid.keyFile }, now()).message).to.include('not a PEM certificate');
    });
  });

  describe('smtp', () => {
    const smtpAt = (port: number) => ({ host: '127.0.0.1', port, secure: false, from: 'outpost@example.com' });

    it('passes an SMTP server that answers', async () => {
      const sink = await startSmtpSink();
      try {
        const r = await checkSmtp(smtpAt(sink.port));
        expect(r.status, r.message).to.equal('ok');
      } finally {
        await sink.close();
      }
    });

    it('fails a closed port', async () => {
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as net.AddressInfo).port;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const r = await checkSmtp(smtpAt(port));
      expect(r.status).to.equal('fail');
      expect(r.message).to.include(`127.0.0.1:${port}`);
    });

    it('fails a server that never greets, within the time given', async () => {
      const sockets = new Set<net.Socket>();
      const server = net.createServer((s) => sockets.add(s));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const started = Date.now();
        const r = await checkSmtp(smtpAt((server.address() as net.AddressInfo).port), 500);
        expect(r.status).to.equal('fail');
        expect(Date.now() - started).to.be.below(3_000);
      } finally {
        for (const s of sockets) s.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('warns that e-mail channels cannot send when SMTP is not configured', async () => {
      const r = await checkSmtp(undefined);
      expect(r.status).to.equal('warn');
      expect(r.message).to.include('e-mail channels cannot send');
    });
  });

  describe('check results', () => {
    // A day of its own, far in the past, so that its partition is this test's alone.
    const OLD_DAY = '2001-02-03';

    it('fails when rows older than retention and a day remain', async () => {
      await sql(`select outpost_ensure_day_partition('check_results', $1::date)`, [OLD_DAY]);
      try {
        await sql(
          `insert into check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at)
           values (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'GREEN', 1, '', 'local', 'doctor-test', $1::date + interval '12 hours')`,
          [OLD_DAY],
        );
        const facts = await readResultsFacts(testSql);
        expect(facts.rows).to.be.at.least(1);
        expect(facts.bytes).to.be.greaterThan(0);
        const r = checkResultsRetention(facts, 30, new Date());
        expect(r.status).to.equal('fail');
        expect(r.message).to.include('2001-02-03').and.include('retention job is not running');
      } finally {
        await sql(`drop table if exists check_results_p${OLD_DAY.replace(/-/g, '')}`);
      }
    });

    it('passes rows within retention and an empty table', () => {
      const now = new Date('2025-06-30T12:00:00Z');
      expect(checkResultsRetention({ rows: 10, oldest: new Date('2025-05-31T00:00:00Z'), bytes: 8192 }, 30, now).status).to.equal('ok');
      expect(checkResultsRetention({ rows: 10, oldest: new Date('2025-05-29T00:00:00Z'), bytes: 8192 }, 30, now).status).to.equal('fail');
      expect(checkResultsRetention({ rows: 0, oldest: null, bytes: 0 }, 30, now).message).to.include('0 row(s)');
    });
  });
});
