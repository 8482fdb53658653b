// `npm run admin -- backup | restore | migrate-database` as an operator runs them: the admin
// command as its own process beside a real control plane (on the embedded database, which only
// that process may open, and on PostgreSQL), an agent reporting throughout, archives restored
// into new PostgreSQL databases and fresh embedded data folders, and the refusals.
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import pg from 'pg';
import { loadConfig } from '../../control-plane/src/config.js';
import { openDatabase } from '../../control-plane/src/db/database.js';
import { backupToFile, restoreFromFile } from '../../control-plane/src/features/backup/admin-backup.js';
import { MIGRATIONS } from '../../control-plane/src/db/migrations/index.js';
import { writeBackup } from '../../control-plane/src/features/backup/write-backup.js';
import { createLogger } from '../../control-plane/src/logger.js';
import { resolveSecrets } from '../../control-plane/src/secrets.js';
import { checkSchema, inspectArchive } from '../../control-plane/src/features/backup/restore-backup.js';
import { freePort } from '../fixtures/peers/net-fixtures.js';
import { ApiClient, type TestUser } from '../support/api-client.js';
import { startAgentProcess, type AgentProcess } from '../support/agent-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { startControlPlaneProcess, type ControlPlaneProcess } from '../support/control-plane-process.js';
import { runAdmin as admin } from '../support/admin-process.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { isolatedDatabase, requireServerDatabase } from '../support/test-database.js';

const PASSPHRASE = 'correct horse battery staple';
const TOKEN = 's3cret-bearer';

/** Answers 200 to the right bearer token and 401 otherwise; counts the checks it answered. */
async function startTarget(): Promise<{ url: string; answered: () => number; stop(): Promise<void> }> {
  let answered = 0;
  const server = http.createServer((req, res) => {
    res.statusCode = req.headers.authorization === `Bearer ${TOKEN}` ? 200 : 401;
    res.end('ok', () => answered++);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    answered: () => answered,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

const query = <T = Record<string, unknown>>(url: string, text: string) => sql<T>(text, [], url);

/** The control plane's configuration of the admin commands run in this process. */
const configFor = (env: Record<string, string>) => loadConfig({ LOG_LEVEL: 'silent', ...env });

/** The archive's lines, and a way to write changed ones back. */
const readLines = (file: string) => gunzipSync(readFileSync(file)).toString('utf8').trimEnd().split('\n');
const writeLines = (file: string, lines: string[]) => writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));

describe('admin backup, restore and migrate-database', function () {
  this.timeout(180_000);
  const dirs: string[] = [];
  const drops: (() => Promise<void>)[] = [];
  const processes: (ControlPlaneProcess | AgentProcess)[] = [];
  /** Control planes in this process, on databases of their own. */
  const harnesses: TestControlPlane[] = [];
  let target: Awaited<ReturnType<typeof startTarget>>;
  const tempDir = (label: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), `outpost-backup-${label}-`));
    dirs.push(dir);
    return dir;
  };
  const newDatabase = async () => {
    const db = await isolatedDatabase();
    drops.push(db.drop);
    return db.url;
  };
  /** A control plane process on DATA_DIR `dataDir` (and DATABASE_URL `url`, when given). */
  const startControlPlane = async (dataDir: string, options: { url?: string; grpcPort?: number; embeddedAgent?: boolean } = {}) => {
    const port = await freePort();
    const cp = startControlPlaneProcess({
      PORT: String(port),
      GRPC_PORT: String(options.grpcPort ?? (await freePort())),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ...(options.url ? { DATABASE_URL: options.url } : {}),
      EMBEDDED_AGENT: String(options.embeddedAgent ?? true),
      LOG_LEVEL: 'warn',
      REGISTRATION_RATE_LIMIT: 'off',
    });
    processes.push(cp);
    await cp.ready(90_000);
    return { cp, api: new ApiClient(cp.baseUrl) };
  };

  before(async function () {
    await requireServerDatabase(this, 'new databases of its own to restore into');
    target = await startTarget();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') for (const p of processes) console.log(p.output().slice(-3000));
    for (const p of processes.splice(0)) await p.kill('SIGKILL');
  });
  after(async () => {
    for (const cp of harnesses) await cp.stop();
    await target?.stop();
    for (const drop of drops) await drop().catch(() => undefined);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  describe('an embedded installation, backed up while it runs', () => {
    let source: string;
    let archive: string;
    let passphraseFile: string;
    let owner: TestUser;
    let serviceId: string;
    let counts: Record<string, number>;

    before(async () => {
      source = tempDir('source');
      const { cp, api } = await startControlPlane(source);
      owner = await api.newUser('owner');
      const created = await api.post('/services', { name: 'guarded', endpoint: target.url, check_type: 'HTTP', check_interval_seconds: 5, options: { bearer_token: TOKEN } }, owner.token);
      expect(created.status, created.text).to.equal(201);
      serviceId = created.body.id;
      const channel = await api.post('/notification-channels', { name: 'hook', channel_type: 'webhook', config: { url: 'http://127.0.0.1:9/hook', secret: 'hook-signing-secret' } }, owner.token);
      expect(channel.status, channel.text).to.equal(201);
      await poll(async () => (await api.get(`/services/${serviceId}`, owner.token)).body.status === 'GREEN', { what: 'GREEN with the sealed token', timeoutMs: 30_000 });

      passphraseFile = path.join(tempDir('keys'), 'passphrase');
      writeFileSync(passphraseFile, `${PASSPHRASE}\n`, { mode: 0o600 });
      archive = path.join(tempDir('archive'), 'outpost.ndjson.gz');
      // Results keep arriving every 5 s while the running control plane takes the snapshot.
      const run = await admin({ DATA_DIR: source }, 'backup', '--out', archive, '--include-keys', '--passphrase-file', passphraseFile);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/taken by the running control plane/).and.match(/the keys sealed with the passphrase/);
      await cp.kill('SIGTERM');
      const manifest = JSON.parse(readLines(archive).at(-1)!)['@manifest'];
      counts = Object.fromEntries(Object.entries(manifest.tables as Record<string, { rows: number }>).map(([t, s]) => [t, s.rows]));
    });

    it('holds every table of the installation with its count, and no runtime table', () => {
      expect(counts.users).to.equal(1);
      expect(counts.services).to.equal(1);
      expect(counts.notification_channels).to.equal(1);
      expect(counts.check_results).to.be.greaterThan(0);
      expect(counts).to.not.have.any.keys('control_plane_replicas', 'agent_sessions', 'rate_limits', 'mikro_orm_migrations');
      const header = JSON.parse(readLines(archive)[0]!);
      expect(header).to.include({ outpost_backup: 1, source: 'embedded', history_days: null });
      expect(header.migrations.at(-1)).to.match(/^\d{4}-/);
      expect(readFileSync(archive).includes(Buffer.from(TOKEN)), 'the sealed secret is not in clear').to.equal(false);
      expect(gunzipSync(readFileSync(archive)).toString().includes(TOKEN), 'nor in the compressed text').to.equal(false);
    });

    it('restores into an empty PostgreSQL database with identical counts, and its secrets work there', async () => {
      const url = await newDatabase();
      const dataDir = tempDir('restored-pg');
      const run = await admin({ DATA_DIR: dataDir, DATABASE_URL: url }, 'restore', '--from', archive, '--passphrase-file', passphraseFile);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/keys from the backup/).and.match(/2 stored secret\(s\) open with the keys given/);
      for (const [table, rows] of Object.entries(counts)) {
        const [row] = await query<{ n: string }>(url, `select count(*) as n from "${table}"`);
        expect(Number(row!.n), table).to.equal(rows);
      }
      // The restored installation signs the owner in, and its agent (the backup's platform token,
      // from DATA_DIR) checks the target with the bearer token opened by the backup's data key.
      const restored = await startTestControlPlane({ dataDir, embeddedAgent: true, env: { DATABASE_URL: url } });
      harnesses.push(restored);
      const { api } = restored;
      const login = await api.post('/auth/login', { email: owner.email, password: owner.password });
      expect(login.status, login.text).to.equal(200);
      const before = (await api.get(`/services/${serviceId}/checks`, login.body.token)).body.length;
      await api.post(`/services/${serviceId}/check`, undefined, login.body.token);
      await poll(async () => (await api.get(`/services/${serviceId}/checks`, login.body.token)).body.length > before, { what: 'a check after the restore', timeoutMs: 30_000 });
      expect((await api.get(`/services/${serviceId}/checks`, login.body.token)).body[0].status).to.equal('GREEN');
      await harnesses.pop()!.stop();
    });

    // In this process (the command's printing is tested above): a process of its own costs seconds.
    it('restores into a fresh embedded data folder with identical counts', async () => {
      const report = await restoreFromFile(configFor({ DATA_DIR: tempDir('restored-embedded') }), { from: archive, passphrase: PASSPHRASE });
      for (const [table, rows] of Object.entries(counts)) expect(report.tables[table], table).to.deep.equal({ archived: rows, restored: rows });
      expect(report.secrets).to.deep.equal({ sealed: 2, unreadable: 0 });
      expect(report.keys).to.equal('from the backup');
    });

    it('refuses a database that is not empty, a wrong passphrase, a damaged or cut archive and a newer schema', async () => {
      const refusal = (work: () => Promise<unknown>) => work().then(() => expect.fail('not refused'), (err: Error) => err.message);
      const url = await newDatabase();
      const dataDir = tempDir('refusals');
      const into = configFor({ DATA_DIR: dataDir, DATABASE_URL: url });
      await restoreFromFile(into, { from: archive, passphrase: PASSPHRASE });
      // Refused, it leaves the keys of the DATA_DIR it was given as they were.
      const untouched = tempDir('untouched');
      const kept = resolveSecrets(untouched, {});
      expect(await refusal(() => restoreFromFile(configFor({ DATA_DIR: untouched, DATABASE_URL: url }), { from: archive, passphrase: PASSPHRASE }))).to.match(/the target database is not empty \([a-z_]+(, [a-z_]+)*(, \.\.\.)? hold rows\)/);
      expect(resolveSecrets(untouched, {})).to.deep.include({ jwtSecret: kept.jwtSecret, agentToken: kept.agentToken });
      expect(readFileSync(path.join(untouched, 'data-keys'), 'utf8')).to.contain(kept.dataKeys.current().key.toString('base64'));
      expect(readFileSync(path.join(untouched, 'data-keys'), 'utf8').trim().split('\n')).to.have.length(2);
      expect(await refusal(() => restoreFromFile(configFor({ DATA_DIR: tempDir('wrong'), DATABASE_URL: url }), { from: archive, passphrase: 'not the passphrase at all' }))).to.match(/passphrase does not open/);

      const lines = readLines(archive);
      const damaged = path.join(dataDir, 'damaged.ndjson.gz');
      // The owner's row in the users table (the audit log names the owner too, before it).
      const usersAt = lines.findIndex((l) => l.startsWith('{"@table":"users"'));
      const row = lines.findIndex((l, i) => i > usersAt && l.includes(owner.email));
      expect(row).to.be.greaterThan(0);
      writeLines(damaged, lines.map((l, i) => (i === row ? l.replace(owner.email, `x${owner.email}`) : l)));
      const cut = path.join(dataDir, 'cut.ndjson.gz');
      writeLines(cut, lines.slice(0, -1));
      const newer = path.join(dataDir, 'newer.ndjson.gz');
      const header = JSON.parse(lines[0]!);
      writeLines(newer, [JSON.stringify({ ...header, version: '99.0.0', migrations: [...header.migrations, '9999-from-the-future'] }), ...lines.slice(1)]);
      // Each is refused before the database is touched: the first through the command (its exit code and message), the others by what it calls.
      const run = await admin({ DATA_DIR: tempDir('refused'), DATABASE_URL: await newDatabase() }, 'restore', '--from', damaged, '--passphrase-file', passphraseFile);
      expect(run.code).to.equal(1);
      expect(run.stderr).to.match(/the rows of users do not match their checksum/);
      expect(await refusal(() => inspectArchive(cut))).to.match(/ends before its manifest: it is incomplete/);
      expect(await refusal(async () => checkSchema((await inspectArchive(newer)).header, MIGRATIONS.map((m) => m.name)))).to.match(/newer version of Outpost \(99\.0\.0/);
      writeFileSync(cut, 'not gzip at all');
      expect(await refusal(() => inspectArchive(cut))).to.match(/cannot be read .*is it an Outpost backup/);
    });

    it('counts the secrets no key opens when the backup holds no keys and none are given', async () => {
      const plain = path.join(tempDir('plain'), 'plain.ndjson.gz');
      const taken = await backupToFile(configFor({ DATA_DIR: source }), { out: plain, historyDays: 1 });
      expect(taken).to.include({ keys: false, takenBy: 'database' });
      expect(JSON.parse(readLines(plain)[0]!).history_days).to.equal(1);
      const report = await restoreFromFile(configFor({ DATA_DIR: tempDir('keyless') }), { from: plain });
      expect(report.secrets).to.deep.equal({ sealed: 2, unreadable: 2 });
    });
  });

  describe('results read in chunks (a running embedded database)', () => {
    it('holds the same results as one snapshot, across services and chunk boundaries, and none received after it', async () => {
      const url = await newDatabase();
      await (await openDatabase({ url, embeddedDataDir: null, poolSize: 1, logger: createLogger('silent') })).close();
      const org = '00000000-0000-4000-8000-000000000001';
      // 5,000 (one whole chunk, then an empty one), 7,000 (a chunk and a part) and none.
      const services = { '00000000-0000-4000-8000-00000000000a': 5_000, '00000000-0000-4000-8000-00000000000b': 7_000, '00000000-0000-4000-8000-00000000000c': 0 };
      await query(url, `insert into organizations (id, name, slug, plan) values ('${org}', 'o', 'o', 'free')`);
      for (const [id, count] of Object.entries(services)) {
        await query(url, `insert into services (id, organization_id, name, endpoint, check_type, check_interval_seconds, timeout_seconds) values ('${id}', '${org}', '${id}', 'http://127.0.0.1:9/', 'HTTP', 60, 10)`);
        await query(url, `select outpost_ensure_day_partition('check_results', d::date) from generate_series(now() - interval '1 day', now() + interval '1 day', interval '1 day') d`);
        await query(url, `insert into check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at)
          select gen_random_uuid(), '${id}', '${org}', 'GREEN', 1, 'ok', 'here', 'a', now() - make_interval(secs => g) from generate_series(1, ${count}) g`);
      }
      // Checked by an agent whose clock is ahead: received before the snapshot, so in it.
      await query(url, `insert into check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at)
        values (gen_random_uuid(), '00000000-0000-4000-8000-00000000000a', '${org}', 'GREEN', 1, 'ok', 'here', 'a', now() + interval '1 hour')`);
      // As if received after the snapshot's moment: left to the next backup.
      const [late] = await query<{ id: string }>(url, `insert into check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at, received_at)
        values (gen_random_uuid(), '00000000-0000-4000-8000-00000000000b', '${org}', 'GREEN', 1, 'ok', 'here', 'a', now(), now() + interval '1 minute') returning id`);
      const resultIds = async (resultsInChunks: boolean) => {
        const file = path.join(tempDir('chunks'), 'b.ndjson.gz');
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await writeBackup(client, createWriteStream(file), { version: 'test', source: 'embedded', resultsInChunks });
        } finally {
          await client.end();
        }
        const facts = await inspectArchive(file);
        const lines = readLines(file);
        const from = lines.findIndex((l) => l.startsWith('{"@table":"check_results"'));
        const ids = lines.slice(from + 1, from + 1 + facts.tables.check_results!.rows).map((l) => JSON.parse(l).id as string);
        return ids;
      };
      const whole = await resultIds(false);
      const chunked = await resultIds(true);
      expect(chunked).to.have.length(12_001);
      expect(new Set(chunked).size).to.equal(12_001);
      expect(whole).to.include(late!.id);
      expect([...chunked].sort()).to.deep.equal(whole.filter((id) => id !== late!.id).sort());
    });
  });

  describe('a backup made by an earlier version', () => {
    it('restores at its own schema, then brings it up to this version, into PostgreSQL and a new embedded folder', async () => {
      const url = await newDatabase();
      const previous = MIGRATIONS.at(-2)!.name;
      await (await openDatabase({ url, embeddedDataDir: null, poolSize: 1, logger: createLogger('silent'), migrateUpTo: previous })).close();
      await query(url, `insert into organizations (id, name, slug, plan) values ('00000000-0000-4000-8000-000000000001', 'Older', 'older', 'free')`);
      const archive = path.join(tempDir('older'), 'older.ndjson.gz');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await writeBackup(client, createWriteStream(archive), { version: '0.1.0', source: 'postgresql' }).finally(() => client.end());
      expect(JSON.parse(readLines(archive)[0]!).migrations.at(-1)).to.equal(previous);

      for (const env of [{ DATABASE_URL: await newDatabase() }, {}] as Record<string, string>[]) {
        const report = await restoreFromFile(configFor({ DATA_DIR: tempDir('older-target'), ...env }), { from: archive });
        expect(report.tables.organizations).to.deep.equal({ archived: 1, restored: 1 });
        expect(report.upgradedWith).to.deep.equal([MIGRATIONS.at(-1)!.name]);
      }
    });
  });

  describe('the dashboard download (POST /api/v1/backup)', () => {

    // A database of its own: the installation must hold exactly the organizations made here.
    it('streams an archive to someone who owns every organization, and to nobody else', async () => {
      const cp = await startTestControlPlane({ dataDir: tempDir('download'), env: { DATABASE_URL: await newDatabase() } });
      harnesses.push(cp);
      const { api } = cp;
      const owner = await api.newUser('owner');
      const member = await api.newUser('member');
      const added = await api.post('/members', { email: member.email, role: 'admin' }, owner.token);
      expect(added.status, added.text).to.be.oneOf([200, 201]);
      const download = (token?: string) => fetch(`${api.baseUrl}/api/v1/backup`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} });

      expect((await download()).status).to.equal(401);
      // Each owns the organization made at registration; only someone owning both may take both.
      const refused = await download(owner.token);
      expect(refused.status).to.equal(403);
      expect(((await refused.json()) as { error: string }).error).to.match(/owns all of them/);
      const joined = await api.post('/members', { email: owner.email, role: 'owner' }, member.token);
      expect(joined.status, joined.text).to.be.oneOf([200, 201]);
      const answer = await download(owner.token);
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('content-type')).to.equal('application/gzip');
      expect(answer.headers.get('content-disposition')).to.match(/attachment; filename="outpost-backup-.*\.ndjson\.gz"/);
      const lines = gunzipSync(Buffer.from(await answer.arrayBuffer())).toString().trimEnd().split('\n');
      expect(JSON.parse(lines.at(-1)!)['@manifest'].tables.users.rows).to.equal(2);
      expect((await fetch(`${api.baseUrl}/api/v1/backup`, { method: 'POST', headers: { 'x-outpost-admin': `${Date.now() + 30_000}.${'A'.repeat(43)}` } })).status).to.equal(401);
    });
  });

  describe('from the embedded database to PostgreSQL, an agent reporting throughout', () => {
    let agent: AgentProcess | undefined;
    // A target of its own: every check it answered must be one result, and nothing else checks it.
    let own: Awaited<ReturnType<typeof startTarget>>;
    before(async () => {
      own = await startTarget();
    });
    after(async () => {
      await agent?.kill('SIGKILL');
      await own?.stop();
    });

    it('copies everything, and the agent keeps its token and replays what it kept, each result once', async () => {
      const dataDir = tempDir('move');
      const agentDir = tempDir('move-agent');
      const grpcPort = await freePort();
      const embedded = await startControlPlane(dataDir, { grpcPort, embeddedAgent: false });
      const owner = await embedded.api.newUser('mover');
      const location = `move-${process.pid}`;
      agent = startAgentProcess({ server: `127.0.0.1:${grpcPort}`, token: readFileSync(path.join(dataDir, 'agent-token'), 'utf8').trim(), location, dataDir: agentDir });
      processes.push(agent);
      const created = await embedded.api.post('/services', { name: 'moving', endpoint: own.url, check_type: 'HTTP', check_interval_seconds: 5, locations: [location], options: { bearer_token: TOKEN } }, owner.token);
      expect(created.status, created.text).to.equal(201);
      const id = created.body.id;
      await poll(async () => (await embedded.api.get(`/services/${id}/checks`, owner.token)).body.length >= 2, { what: 'results on the embedded database', timeoutMs: 60_000 });

      await embedded.cp.kill('SIGTERM');
      const answeredAtStop = own.answered();
      const url = await newDatabase();
      const move = await admin({ DATA_DIR: dataDir }, 'migrate-database', '--to', url);
      expect(move.code, move.stderr).to.equal(0);
      expect(move.stdout).to.match(/DATABASE_URL=postgres/).and.match(/1 stored secret\(s\) open/);
      // The agent went on checking while nothing could take its results.
      await poll(() => own.answered() >= answeredAtStop + 1, { what: 'a check while the control plane is away', timeoutMs: 20_000, intervalMs: 50 });

      const moved = await startControlPlane(dataDir, { url, grpcPort, embeddedAgent: false });
      await poll(async () => (await moved.api.get(`/services/${id}`, owner.token)).status === 200, { what: 'the service on PostgreSQL' });
      // Checks go on every 5 s; between two of them, every check answered is a result, once.
      const counted = () => query<{ n: string; distinct: string }>(url, `select count(*) as n, count(distinct id) as distinct from check_results where service_id = '${id}'`);
      let stored = 0;
      await poll(async () => (stored = Number((await counted())[0]!.n)) === own.answered() && own.answered() > answeredAtStop + 1, { what: 'every check answered stored on PostgreSQL', timeoutMs: 60_000, intervalMs: 100 }).catch((err: Error) => {
        throw new Error(`${err.message}: ${stored} stored of ${own.answered()} answered`);
      });
      const [row] = await counted();
      expect(row!.distinct, 'each result once').to.equal(row!.n);
      const [agents] = await query<{ n: string }>(url, 'select count(*) as n from users');
      expect(Number(agents!.n)).to.equal(1);
    });
  });
});
