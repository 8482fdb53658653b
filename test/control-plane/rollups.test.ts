// Rollups folded from the backlog ingest appends to, raw results in day partitions with
// retention, and the answers built on them: per-service uptime/metrics and GET /metrics.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { HISTOGRAM_BUCKETS, histogramBucket } from '../../control-plane/src/features/checks/response-histogram.js';
import { encodeBacklog } from '../../control-plane/src/features/checks/rollup-deltas.js';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { MovableClock } from '../support/movable-clock.js';
import { sql } from '../support/sql.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('rollups, partitions and retention', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  const clock = new MovableClock();

  before(async () => {
    cp = await startTestControlPlane({ start: { clock }, env: { CHECK_RETENTION_DAYS: '2' } });
    agent = await connectReadyAgent(cp.running);
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
  });

  const newService = async (u: TestUser, name = 'rolled') =>
    (await cp.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', check_interval_seconds: 3600 }, u.token)).body.id as string;

  it('folds every new result into the minute, hour and day rollups once; the same results sent again count nothing', async () => {
    const u = await cp.api.newUser('rollup-once');
    const serviceId = await newService(u);
    const now = clock.now().getTime();
    // Spread over several minutes and hours (and across midnight, for most times of day).
    const batch = Array.from({ length: 60 }, (_, i) => ({
      id: randomUUID(),
      serviceId,
      ok: i % 5 !== 0,
      responseTimeMs: 10 + i,
      checkedAtMs: now - i * 17 * 60_000,
    }));
    expect(await agent.sendResults(batch)).to.equal(60);
    expect(await agent.sendResults(batch), 'the same results again').to.equal(0);
    await cp.running.settleRollups();

    const raw = await sql<{ total: string; up: string; sum: number }>(
      `select count(*) as total, count(*) filter (where status <> 'RED') as up, sum(response_time_ms) as sum from check_results where service_id = $1`,
      [serviceId],
    );
    for (const table of ['check_rollups_minute', 'check_rollups_hour', 'check_rollups_day']) {
      const [rolled] = await sql<{ total: string; up: string; sum: number }>(
        `select sum(total_checks) as total, sum(successful_checks) as up, sum(response_time_sum_ms) as sum from ${table} where service_id = $1`,
        [serviceId],
      );
      expect(rolled, table).to.deep.equal(raw[0]);
    }
    const [hist] = await sql<{ n: string }>(`select sum(h) as n from check_rollups_day, unnest(response_histogram) h where service_id = $1`, [serviceId]);
    expect(Number(hist!.n), 'every result in a histogram bucket').to.equal(60);

    const uptime = (await cp.api.get(`/services/${serviceId}/uptime?period=24h`, u.token)).body;
    expect(uptime).to.include({ total_checks: 60, successful_checks: 48, uptime_percentage: 80 });
    const metrics = (await cp.api.get(`/services/${serviceId}/metrics?period=24h&bucket=5m`, u.token)).body;
    expect(metrics.total_checks).to.equal(60);
    expect(metrics.avg_response_time_ms).to.equal(39.5);
    expect(metrics.points.reduce((n: number, p: { total_checks: number }) => n + p.total_checks, 0)).to.equal(60);
    expect(metrics.points.every((p: { timestamp: string }) => new Date(p.timestamp).getTime() % 300_000 === 0)).to.equal(true);
    // 10..69 ms: the exact p95 is 66 ms; the histogram answers within 10 %.
    expect(metrics.p95_response_time_ms).to.be.within(66 * 0.9, 66 * 1.1);
    const hourly = (await cp.api.get(`/services/${serviceId}/metrics?period=90d&bucket=1h`, u.token)).body;
    expect(hourly.points.reduce((n: number, p: { total_checks: number }) => n + p.total_checks, 0)).to.equal(60);
    const daily = (await cp.api.get(`/services/${serviceId}/metrics?period=90d`, u.token)).body;
    expect(daily).to.include({ bucket: '1d', total_checks: 60, successful_checks: 48 });
  });

  const rolledTotals = async (serviceId: string) =>
    Promise.all(
      ['check_rollups_minute', 'check_rollups_hour', 'check_rollups_day'].map(async (table) => {
        const [row] = await sql<{ n: string | null }>(`select sum(total_checks) as n from ${table} where service_id = $1`, [serviceId]);
        return Number(row!.n ?? 0);
      }),
    );

  it('counts each result once when replicas fold the backlog at the same time as each other and as reads', async function () {
    this.timeout(30_000);
    const replica = await startTestControlPlane({ start: { clock } });
    try {
      const u = await cp.api.newUser('rollup-replicas');
      const serviceId = await newService(u);
      const now = clock.now().getTime();
      let sent = 0;
      for (let b = 0; b < 8; b++) {
        const batch = Array.from({ length: 25 }, (_, i) => ({ serviceId, ok: i % 4 !== 0, checkedAtMs: now - (b * 25 + i) * 30_000 }));
        sent += await agent.sendResults(batch);
        // Bursts of reads and folds on both replicas between batches: each read counts every result acknowledged.
        if (b % 2 === 1) {
          const reads = Array.from({ length: 6 }, (_, i) => (i % 2 ? cp : replica).api.get(`/services/${serviceId}/uptime?period=7d`, u.token));
          const [answers] = await Promise.all([Promise.all(reads), cp.running.settleRollups(), replica.running.settleRollups()]);
          for (const r of answers) expect(r.body.total_checks, 'every acknowledged result').to.equal(sent);
        }
      }
      const [uptime] = await Promise.all([
        replica.api.get(`/services/${serviceId}/uptime?period=7d`, u.token),
        cp.running.settleRollups(),
        replica.running.settleRollups(),
      ]);
      expect(sent).to.equal(200);
      expect(uptime.body, 'a read on the other replica counts every acknowledged result').to.include({ total_checks: 200, successful_checks: 144 });
      expect(await rolledTotals(serviceId)).to.deep.equal([200, 200, 200]);
      expect(await sql('select 1 from rollup_backlog')).to.deep.equal([]);
    } finally {
      await replica.stop();
    }
  });

  it('folds the backlog a stopped replica left, except for services deleted since', async () => {
    const u = await cp.api.newUser('rollup-left');
    const kept = await newService(u, 'kept');
    const deleted = await newService(u, 'deleted');
    expect((await cp.api.del(`/services/${deleted}`, u.token)).status).to.equal(204);
    const checkedAt = new Date(clock.now().getTime() - 60_000);
    // As the ingest transaction of a replica that stopped before any folder ran would leave it.
    await sql('insert into rollup_backlog (results) values ($1)', [
      encodeBacklog([
        { serviceId: kept, checkedAt, status: 'GREEN', responseTimeMs: 12 },
        { serviceId: kept, checkedAt, status: 'RED', responseTimeMs: 30 },
        { serviceId: deleted, checkedAt, status: 'GREEN', responseTimeMs: 5 },
      ]),
    ]);
    const uptime = (await cp.api.get(`/services/${kept}/uptime?period=24h`, u.token)).body;
    expect(uptime).to.include({ total_checks: 2, successful_checks: 1 });
    expect(await rolledTotals(kept)).to.deep.equal([2, 2, 2]);
    expect(await rolledTotals(deleted), 'nothing comes back for a deleted service').to.deep.equal([0, 0, 0]);
  });

  it('settles a backlog of more batches than one fold takes before answering', async () => {
    const u = await cp.api.newUser('rollup-deep');
    const serviceId = await newService(u);
    const checkedAt = new Date(clock.now().getTime() - 60_000);
    const rows = Array.from({ length: 450 }, (_, i) => encodeBacklog([{ serviceId, checkedAt, status: i % 3 ? 'GREEN' : 'RED', responseTimeMs: 5 }]));
    await sql('insert into rollup_backlog (results) select unnest($1::text[])', [rows]);
    const uptime = (await cp.api.get(`/services/${serviceId}/uptime?period=24h`, u.token)).body;
    expect(uptime).to.include({ total_checks: 450, successful_checks: 300 });
    expect(await rolledTotals(serviceId)).to.deep.equal([450, 450, 450]);
  });

  it('still answers uptime when the backlog cannot be folded, from the rollups as they are', async () => {
    const u = await cp.api.newUser('rollup-unfoldable');
    const serviceId = await newService(u);
    expect(await agent.sendResults([{ serviceId, ok: true }, { serviceId, ok: false }])).to.equal(2);
    await cp.running.settleRollups();
    const [unfoldable] = await sql<{ id: string }>(`insert into rollup_backlog (results) values ('{not json') returning id`);
    try {
      const uptime = await cp.api.get(`/services/${serviceId}/uptime?period=24h`, u.token);
      expect(uptime.status).to.equal(200);
      expect(uptime.body).to.include({ total_checks: 2, successful_checks: 1 });
    } finally {
      await sql('delete from rollup_backlog where id = $1', [unfoldable!.id]);
    }
  });

  it("deletes a service's raw results and rollups with it", async () => {
    const u = await cp.api.newUser('rollup-delete');
    const serviceId = await newService(u);
    expect(await agent.sendResults([{ serviceId, ok: true }, { serviceId, ok: false }])).to.equal(2);
    expect((await cp.api.del(`/services/${serviceId}`, u.token)).status).to.equal(204);
    for (const table of ['check_results', 'check_rollups_minute', 'check_rollups_hour', 'check_rollups_day']) {
      expect(await sql(`select 1 from ${table} where service_id = $1`, [serviceId]), table).to.deep.equal([]);
    }
  });

  it('files response times in the same histogram buckets in SQL (backfills) as at ingest', async () => {
    const values = [0, 0.4, 1, 1.1, 1.19, 2, 3, 10, 99.9, 100, 1000, 1234.5, 60_000, 119_999, 1e7];
    const [row] = await sql<{ h: number[] }>('select outpost_response_histogram($1::float8[]) as h', [values]);
    const expected = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
    for (const v of values) expected[histogramBucket(v)]! += 1;
    expect(row!.h).to.deep.equal(expected);
  });

  it('keeps raw results in day partitions made ahead of time', async () => {
    const names = (await sql<{ relname: string }>(
      `select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'check_results'::regclass`,
    )).map((r) => r.relname);
    const day = (offset: number) => `check_results_p${new Date(clock.now().getTime() + offset * DAY).toISOString().slice(0, 10).replaceAll('-', '')}`;
    expect(names).to.include.members([day(0), day(1), day(2)]);
  });

  it('does not keep results older than retention, files far-future ones at arrival, and answers uptime from rollups after raw days are dropped', async () => {
    const u = await cp.api.newUser('rollup-retention');
    const serviceId = await newService(u);
    // `recent`, ten minutes back, must be on today's partition, which retention keeps; in the
    // first minutes of a UTC day it would be on yesterday's, so the clock first moves past them.
    const intoDay = clock.now().getTime() % DAY;
    if (intoDay < HOUR) clock.advance(HOUR - intoDay);
    const now = clock.now().getTime();
    const yesterday = { id: randomUUID(), serviceId, ok: true, checkedAtMs: now - 30 * HOUR };
    const recent = { id: randomUUID(), serviceId, ok: false, checkedAtMs: now - 10 * 60_000 };
    const tooOld = { id: randomUUID(), serviceId, ok: true, checkedAtMs: now - 3 * DAY };
    const future = { id: randomUUID(), serviceId, ok: true, checkedAtMs: now + 3 * DAY };
    expect(await agent.sendResults([yesterday, recent, tooOld, future])).to.equal(3);

    const logged = async () => (await cp.api.get(`/services/${serviceId}/checks`, u.token)).body as { id: string; checked_at: string }[];
    const before = await logged();
    expect(before.map((c) => c.id)).to.have.members([yesterday.id, recent.id, future.id]);
    const filed = before.find((c) => c.id === future.id)!;
    expect(new Date(filed.checked_at).getTime(), 'filed at arrival').to.be.within(now - 60_000, clock.now().getTime() + 1000);

    // Two days on, retention (2 days) drops yesterday's partition, not today's.
    clock.advance(2 * DAY);
    expect(await cp.running.runRetention()).to.be.greaterThan(0);
    expect((await logged()).map((c) => c.id)).to.have.members([recent.id, future.id]);
    const uptime = (await cp.api.get(`/services/${serviceId}/uptime?period=7d`, u.token)).body;
    expect(uptime).to.include({ total_checks: 3, successful_checks: 2 });

    // A result for a day whose partition was dropped elsewhere is still stored: the partition is made again.
    const late = { id: randomUUID(), serviceId, ok: true, checkedAtMs: clock.now().getTime() - 30 * HOUR };
    expect(await agent.sendResults([late])).to.equal(1);
  });

  describe('GET /metrics', () => {
    it("answers every service of the organization with its uptime and mean response time", async () => {
      const u = await cp.api.newUser('metrics-overview');
      const checked = await newService(u, 'checked');
      const idle = await newService(u, 'idle');
      const now = clock.now().getTime();
      await agent.sendResults([
        { serviceId: checked, ok: true, responseTimeMs: 100, checkedAtMs: now - 60_000 },
        { serviceId: checked, ok: false, responseTimeMs: 300, checkedAtMs: now - 120_000 },
      ]);
      const r = await cp.api.get('/metrics?period=7d', u.token);
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ period: '7d', total_checks: 2, successful_checks: 1, uptime_percentage: 50 });
      expect(r.body.services).to.deep.equal([
        { service_id: checked, name: 'checked', check_type: 'HTTP', status: 'GREEN', total_checks: 2, successful_checks: 1, uptime_percentage: 50, avg_response_time_ms: 200 },
        { service_id: idle, name: 'idle', check_type: 'HTTP', status: null, total_checks: 0, successful_checks: 0, uptime_percentage: null, avg_response_time_ms: null },
      ]);
      expect((await cp.api.get('/metrics', u.token)).body.period, 'the default period').to.equal('24h');
    });

    it('refuses a bad period or query, another organization, and no credentials', async () => {
      const u = await cp.api.newUser('metrics-bad');
      const other = await cp.api.newUser('metrics-other');
      expect((await cp.api.get('/metrics?period=1y', u.token)).status).to.equal(400);
      expect((await cp.api.get('/metrics?colour=red', u.token)).status).to.equal(400);
      const otherSlug = (await cp.api.get('/organization', other.token)).body.slug;
      expect((await cp.api.get(`/metrics?org=${otherSlug}`, u.token)).status).to.equal(403);
      expect((await cp.api.get('/metrics')).status).to.equal(401);
      expect((await cp.api.get('/metrics', other.token)).body.services, 'nothing of another organization').to.deep.equal([]);
    });
  });
});
