// Upgrades (issue 41, item 5): databases made by earlier schemas, kept as pg_dump fixtures
// (test/fixtures/upgrade/README.md), loaded into new databases and migrated by this build.
// No row is lost, the columns later migrations added hold their defaults, and a control plane
// of this build reads the installation back: its user signs in, the services' secrets sealed
// then still open for their checks, history, alerts, channels and status pages are there.
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { openDatabase } from '../../control-plane/src/db/database.js';
import { MIGRATIONS } from '../../control-plane/src/db/migrations/index.js';
import { createLogger } from '../../control-plane/src/logger.js';
import { peerBinary } from '../fixtures/peers/require-peer.js';
import { FIXTURE_ENV, OWNER, SECRETS, STATUS_PAGE_SLUG } from '../fixtures/upgrade/fixture-values.js';
import { rowCounts } from '../fixtures/upgrade/installation-tables.js';
import { startLoopbackTarget, type LoopbackTarget } from '../fixtures/upgrade/loopback-target.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { isolatedDatabase, requireServerDatabase } from '../support/test-database.js';
import { withClient } from '../support/sql.js';

const FIXTURES = path.resolve('test/fixtures/upgrade');

function loadDump(url: string, file: string): void {
  const run = spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', path.join(FIXTURES, file)], { encoding: 'utf8', timeout: 30_000 });
  if (run.status !== 0) throw new Error(`psql could not load ${file}: ${run.stderr}`);
}

type Columns = Map<string, { default: string | null }>;

async function columns(client: pg.Client): Promise<Columns> {
  const { rows } = await client.query<{ name: string; column_default: string | null }>(
    `select table_name || '.' || column_name as name, column_default from information_schema.columns where table_schema = 'public'`,
  );
  return new Map(rows.map((r) => [r.name, { default: r.column_default }]));
}

/**
 * Each column added to a table that had rows, with the rows that do not hold its default (or
 * null). A column a migration fills from other data (0016's heartbeats.expected_at) would be
 * listed apart; none of the fixtures predates such a column in a table with rows.
 */
const DERIVED_COLUMNS = new Set(['status_pages.access']);

async function addedColumnsOffDefault(client: pg.Client, before: Columns, after: Columns, counts: Record<string, number>): Promise<Record<string, number>> {
  const off: Record<string, number> = {};
  for (const [name, column] of after) {
    const [table, col] = name.split('.') as [string, string];
    if (before.has(name) || !counts[table]) continue;
    // A time of the migration (now()) or a sequence's next value is no fixed value to compare.
    if (column.default && /now\(\)|nextval\(/.test(column.default)) continue;
    // Set from the column it replaces (migration 0023: public false became members).
    if (DERIVED_COLUMNS.has(name)) continue;
    const expected = column.default ?? 'null';
    const { rows } = await client.query<{ n: string }>(`select count(*) as n from "${table}" where "${col}" is distinct from ${expected}`);
    off[name] = Number(rows[0]!.n);
  }
  return off;
}

interface Upgraded {
  before: Record<string, number>;
  after: Record<string, number>;
  offDefault: Record<string, number>;
  /** The results in the rollup backlog at the fixture's stop, as [service id, epoch ms, status, ms]. */
  backlog: [string, number, string, number][];
  url: string;
  /** When this build's control plane started on it: results before are the fixture's. */
  startedAt: Date;
  cp: TestControlPlane;
  token: string;
  target: LoopbackTarget;
}

/**
 * A new database holding `file`, migrated by this build, with a control plane of this build on
 * it (its embedded agent checking), the fixture's owner signed in. Retention keeps everything,
 * however old the fixture has grown.
 */
function upgradedFrom(file: string): { get(): Upgraded } {
  let upgraded: Upgraded | undefined;
  let drop: (() => Promise<void>) | undefined;
  before(async function () {
    this.timeout(60_000);
    await requireServerDatabase(this, 'a PostgreSQL database of its own to load the pg_dump fixture into with psql');
    peerBinary('/usr/bin/psql', 'postgresql-client', this);
    const db = await isolatedDatabase();
    drop = db.drop;
    loadDump(db.url, file);
    const [before, columnsBefore, backlog] = await withClient(db.url, async (c) => [
      await rowCounts(c),
      await columns(c),
      (await c.query<{ results: string }>(`select results from rollup_backlog`).catch(() => ({ rows: [] }))).rows.flatMap((r) => JSON.parse(r.results)),
    ] as const);
    const migrated = await openDatabase({ url: db.url, embeddedDataDir: null, poolSize: 1, logger: createLogger('silent') });
    await migrated.close();
    const [after, offDefault] = await withClient(db.url, async (c) => {
      const counts = await rowCounts(c);
      return [counts, await addedColumnsOffDefault(c, columnsBefore, await columns(c), before)] as const;
    });
    const target = await startLoopbackTarget();
    const startedAt = new Date();
    const cp = await startTestControlPlane({ embeddedAgent: true, env: { DATABASE_URL: db.url, ...FIXTURE_ENV, CHECK_RETENTION_DAYS: '3650' } }).catch(async (err) => {
      await target.stop();
      throw err;
    });
    upgraded = { before, after, offDefault, backlog, url: db.url, startedAt, cp, target, token: '' };
    const login = await cp.api.post('/auth/login', { email: OWNER.email, password: OWNER.password });
    expect(login.status, login.text).to.equal(200);
    upgraded.token = login.body.token;
  });
  after(async () => {
    await upgraded?.cp.stop();
    await upgraded?.target.stop();
    await drop?.();
  });
  return { get: () => upgraded! };
}

/**
 * Points a service at `endpoint` and waits for a GREEN result of a check run after that (a
 * check of the former endpoint may still land first); fails naming the latest result.
 */
async function expectGreenAgainst(u: Upgraded, serviceId: string, endpoint: string): Promise<void> {
  const since = new Date();
  const put = await u.cp.api.put(`/services/${serviceId}`, { endpoint }, u.token);
  expect(put.status, put.text).to.equal(200);
  await u.cp.api.post(`/services/${serviceId}/check`, {}, u.token);
  let latest: { status: string; message: string; checked_at: string } | undefined;
  await poll(async () => {
    [latest] = (await u.cp.api.get(`/services/${serviceId}/checks?limit=1`, u.token)).body;
    return latest && new Date(latest.checked_at) >= since && latest.status === 'GREEN';
  }, { what: `a GREEN check of ${endpoint}`, timeoutMs: 15_000 }).catch((err: Error) => {
    throw new Error(`${err.message}; the latest result: ${JSON.stringify(latest)}`);
  });
}

function describeCommonExpectations(fixture: { get(): Upgraded }, securedService: string, migrationsBefore: number): void {
  it('keeps every row of every table; the migrations table gains the migrations applied', () => {
    const { before, after } = fixture.get();
    expect(after.mikro_orm_migrations).to.equal(MIGRATIONS.length);
    expect(before.mikro_orm_migrations).to.equal(migrationsBefore);
    const tables = Object.keys(before).filter((t) => t !== 'mikro_orm_migrations');
    expect(tables.filter((t) => before[t] === 0), 'the fixture has a row in every table').to.deep.equal([]);
    expect(Object.fromEntries(tables.map((t) => [t, after[t]]))).to.deep.equal(Object.fromEntries(tables.map((t) => [t, before[t]])));
  });

  it('gives every column that later migrations added to a table with rows its default', () => {
    const { offDefault } = fixture.get();
    expect(Object.keys(offDefault), 'the fixture predates some added columns').to.not.be.empty;
    expect(Object.entries(offDefault).filter(([, n]) => n > 0)).to.deep.equal([]);
  });

  it("lets the fixture's owner list the services, their secret options masked", async () => {
    const u = fixture.get();
    const services = (await u.cp.api.get('/services', u.token)).body as { name: string; options: Record<string, unknown> }[];
    expect(services.find((s) => s.name === securedService)?.options.bearer_token).to.equal('********');
    expect(services.filter((s) => s.options.password !== undefined).map((s) => s.options.password)).to.deep.equal(['********']);
  });

  it('counts each stored result once in the minute rollups, the backlog left at the stop folded', async () => {
    const u = fixture.get();
    const query = (text: string, params: unknown[] = []) => withClient(u.url, async (c) => (await c.query(text, params)).rows);
    // What every rollup read does first: fold the backlog, here the fixture's and the new results' (the background fold waits up to a minute, ADR 7).
    await u.cp.running.settleRollups();
    const miscounted = await query(
      `with r as (select service_id, date_bin('1 minute', checked_at, 'epoch') as bucket, count(*)::int as n from check_results where checked_at < $1 group by 1, 2)
       select r.service_id, r.bucket, r.n, m.total_checks from r left join check_rollups_minute m using (service_id, bucket) where m.total_checks is distinct from r.n`,
      [new Date(Math.floor(u.startedAt.getTime() / 60_000) * 60_000)],
    );
    expect(miscounted).to.deep.equal([]);
  });

  it('runs a check with the secrets sealed before the upgrade', async () => {
    const u = fixture.get();
    const services = (await u.cp.api.get('/services', u.token)).body as { id: string; name: string }[];
    await expectGreenAgainst(u, services.find((s) => s.name === securedService)!.id, `${u.target.url}/secured`);
  });
}

describe('upgrades', () => {
  describe('from v0.1.0 (a database its own control plane made and filled)', () => {
    const fixture = upgradedFrom('v0.1.0.sql');
    describeCommonExpectations(fixture, 'payments api', 19);
    const service = async (u: Upgraded, name: string) => ((await u.cp.api.get('/services', u.token)).body as { id: string; name: string }[]).find((s) => s.name === name)!;

    it('reads back the history of an earlier day, its failures included', async () => {
      const u = fixture.get();
      const history = (await u.cp.api.get(`/services/${(await service(u, 'orders api')).id}/checks?limit=500`, u.token)).body as { status: string; message: string; checked_at: string }[];
      const days = new Set(history.map((r) => r.checked_at.slice(0, 10)));
      expect(days.size).to.be.greaterThan(1);
      expect(history.filter((r) => r.message === 'connection refused' && r.checked_at < u.startedAt.toISOString())).to.have.length(2);
    });

    it('had results waiting in the rollup backlog at the stop', () => {
      expect(fixture.get().backlog).to.not.be.empty;
    });

    it('keeps the alerts in each state with their deliveries, and the rules', async () => {
      const u = fixture.get();
      const alerts = (await u.cp.api.get('/alerts?status=all&limit=100', u.token)).body as { id: string; title: string; status: string; kind?: string }[];
      const before = (title: string, status: string) => alerts.find((a) => a.title === title && a.status === status);
      expect(before('legacy portal is RED', 'firing')).to.include({ kind: 'service' });
      expect(before('portal certificate is RED', 'acknowledged')).to.not.equal(undefined);
      expect(before('flaky search is RED', 'resolved')).to.not.equal(undefined);
      const deliveries = (await u.cp.api.get(`/alerts/${before('legacy portal is RED', 'firing')!.id}/deliveries`, u.token)).body as { status: string }[];
      expect(deliveries.map((d) => d.status)).to.include('delivered');
      const rules = (await u.cp.api.get('/alert-rules', u.token)).body as { name: string }[];
      expect(rules.map((r) => r.name)).to.have.members(['legacy down', 'search failing', 'certificate problem', 'slow anything']);
    });

    it('masks the channels\' secrets, and a delivery is still signed with the stored one', async () => {
      const u = fixture.get();
      const channels = (await u.cp.api.get('/notification-channels', u.token)).body as { id: string; name: string; config: Record<string, string> }[];
      const telegram = channels.find((c) => c.name === 'telegram')!;
      expect(telegram.config.bot_token).to.match(/\*+e6f1$/).and.not.equal(SECRETS.telegramBotToken);
      const webhook = channels.find((c) => c.name === 'ops webhook')!;
      expect(webhook.config.secret).to.match(/\*+9d0e$/);
      const put = await u.cp.api.put(`/notification-channels/${webhook.id}`, { config: { ...webhook.config, url: `${u.target.url}/hooks/ops` } }, u.token);
      expect(put.status, put.text).to.equal(200);
      expect((await u.cp.api.post(`/notification-channels/${webhook.id}/test`, {}, u.token)).status).to.equal(202);
      const hook = await poll(() => u.target.hooks.find((h) => h.path === '/hooks/ops'), { what: 'the test delivery' });
      expect(hook.headers['x-signature-256']).to.equal(`sha256=${createHmac('sha256', SECRETS.webhookSecret).update(hook.body).digest('hex')}`);
    });

    it('shows the public status page', async () => {
      const u = fixture.get();
      const page = await u.cp.api.get(`/status-pages/${STATUS_PAGE_SLUG}/public`);
      expect(page.status, page.text).to.equal(200);
      expect((page.body.services as { name: string }[]).map((s) => s.name)).to.have.members(['orders api', 'payments api', 'checkout']);
    });

    it('keeps a private status page private: members only', async () => {
      const u = fixture.get();
      const pages = (await u.cp.api.get('/status-pages', u.token)).body as { slug: string; access: string; public: boolean }[];
      expect(pages.map((p) => [p.slug, p.access, p.public])).to.have.deep.members([
        [STATUS_PAGE_SLUG, 'public', true],
        ['acme-internal', 'members', false],
      ]);
      expect((await u.cp.api.get('/status-pages/acme-internal/public')).status).to.equal(404);
    });
  });

  describe('from 0001-initial (the oldest schema still supported)', () => {
    const fixture = upgradedFrom('0001-initial.sql');
    describeCommonExpectations(fixture, 'private api', 1);
  });
});
