// Heartbeats: pinged → GREEN; silent past interval + grace → RED with an alert delivered;
// pinged again → the alert resolves. Cron heartbeats: the next expected run in the schedule's
// time zone across DST changes, RED only past that run + grace (a movable clock set to the
// day), and a started run past its max runtime.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { poll } from '../support/poll.js';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';
import type { TestUser } from '../support/api-client.js';
import { MovableClock } from '../support/movable-clock.js';

describe('heartbeats', () => {
  let cp: TestControlPlane;
  let receiver: HttpReceiver;
  before(async () => {
    receiver = await startHttpReceiver();
    cp = await startTestControlPlane({ start: { jobIntervalMs: 100, retry: { maxAttempts: 3, baseDelayMs: 50 } } });
  });
  after(async () => {
    await cp?.stop();
    await receiver?.close();
  });

  it('goes GREEN on a ping, RED with an alert when it misses its deadline, and recovers on the next ping', async function () {
    this.timeout(30_000);
    const u = await cp.api.newUser('heartbeat');
    const path = `/hb-${randomUUID()}`;
    await cp.api.post('/notification-channels', { name: 'hook', channel_type: 'webhook', config: { url: `${receiver.url}${path}` } }, u.token);
    await cp.api.post('/alert-rules', { name: 'jobs', severity: 'warning' }, u.token);
    const created = await cp.api.post('/heartbeats', { name: 'nightly-backup', interval_seconds: 1, grace_seconds: 1 }, u.token);
    expect(created.status, created.text).to.equal(201);
    const hb = created.body;
    expect(hb).to.include({ name: 'nightly-backup', interval_seconds: 1, grace_seconds: 1, status: null, last_ping_at: null });
    expect(hb.ping_url).to.equal(`/api/v1/heartbeat/${hb.key}`);

    const ping = await cp.api.request('POST', `/heartbeat/${hb.key}`, { body: 'backup done, 42 GB', headers: { 'content-type': 'text/plain' } });
    expect(ping.status, ping.text).to.equal(200);
    expect((await cp.api.get(`/heartbeats/${hb.id}`, u.token)).body.status).to.equal('GREEN');
    const missed = await poll(async () => {
      const now = (await cp.api.get(`/heartbeats/${hb.id}`, u.token)).body;
      return now.status === 'RED' && now;
    }, { what: 'RED after the deadline', timeoutMs: 10_000 });
    expect(missed.status).to.equal('RED');
    const fired = await receiver.waitFor((q) => q.url === path && q.json?.event === 'alert_fired', 'the alert for the missed heartbeat');
    expect(fired.json.alert.title).to.equal('nightly-backup is RED');
    expect((await cp.api.get(`/services/${hb.service_id}/checks`, u.token)).body[0].message).to.match(/no ping within 2 s/);

    expect((await cp.api.get(`/heartbeat/${hb.key}`)).status).to.equal(200);
    await receiver.waitFor((q) => q.url === path && q.json?.event === 'alert_resolved', 'the resolve on the next ping');
  });

  it('records a failure on /fail, ignores /start for status, answers HEAD, and says 404 for unknown keys', async () => {
    const u = await cp.api.newUser('heartbeat-fail');
    const hb = (await cp.api.post('/heartbeats', { name: 'cron', interval_seconds: 3600 }, u.token)).body;
    expect(hb.grace_seconds).to.equal(60);
    expect((await cp.api.request('POST', `/heartbeat/${hb.key}/start`)).status).to.equal(200);
    expect((await cp.api.get(`/heartbeats/${hb.id}`, u.token)).body.status).to.equal(null);
    expect((await cp.api.request('POST', `/heartbeat/${hb.key}/fail`)).status).to.equal(200);
    expect((await cp.api.get(`/heartbeats/${hb.id}`, u.token)).body.status).to.equal('RED');
    expect((await cp.api.request('HEAD', `/heartbeat/${hb.key}`)).status).to.equal(200);
    expect((await cp.api.get(`/heartbeats/${hb.id}`, u.token)).body.status).to.equal('GREEN');
    for (const key of ['unknown-key', 'x'.repeat(100)]) expect((await cp.api.get(`/heartbeat/${key}`)).status).to.equal(404);
    expect((await cp.api.request('DELETE', `/heartbeat/${hb.key}`)).status).to.equal(405);
  });

  it('validates, updates, keeps organizations apart, and deletes with its service', async () => {
    const u = await cp.api.newUser('heartbeat-crud');
    const stranger = await cp.api.newUser('heartbeat-stranger');
    expect((await cp.api.post('/heartbeats', { name: 'x', interval_seconds: 0 }, u.token)).status).to.equal(400);
    expect((await cp.api.post('/heartbeats', { interval_seconds: 60 }, u.token)).status).to.equal(400);
    const hb = (await cp.api.post('/heartbeats', { name: 'etl', interval_seconds: 60 }, u.token)).body;
    const updated = await cp.api.put(`/heartbeats/${hb.id}`, { name: 'etl-v2', grace_seconds: 5 }, u.token);
    expect(updated.body).to.include({ name: 'etl-v2', grace_seconds: 5, interval_seconds: 60 });
    expect((await cp.api.put(`/services/${hb.service_id}`, { name: 'sneaky' }, u.token)).status).to.equal(400);
    expect((await cp.api.get(`/heartbeats/${hb.id}`, stranger.token)).status).to.equal(404);
    expect((await cp.api.del(`/heartbeats/${hb.id}`, u.token)).status).to.equal(204);
    expect((await cp.api.get(`/services/${hb.service_id}`, u.token)).status).to.equal(404);
  });
});

// Apart, so that no control plane on real time shares the database meanwhile: it would claim
// these deadlines, which are in its past.
describe('heartbeats with a schedule or a max runtime', () => {
  const clock = new MovableClock();
  let timed: TestControlPlane;
  let u: TestUser;
  before(async () => {
    // Each test runs a deadline round itself right after moving the clock (the job's own
    // rounds come each second and find the same).
    timed = await startTestControlPlane({ start: { clock } });
  });
  beforeEach(async () => {
    // The free plan holds 5 services: a user per test.
    u = await timed.api.newUser('cron-heartbeat');
  });
  after(async () => {
    await timed?.stop();
  });

  const read = async (id: string) => (await timed.api.get(`/heartbeats/${id}`, u.token)).body;
  const lastMessage = async (serviceId: string) => (await timed.api.get(`/services/${serviceId}/checks`, u.token)).body[0]?.message;
  /**
   * Runs a deadline round that starts after now: a round already under way (the job's own,
   * which runOnce joins) may have read the clock before the test moved it.
   */
  const runRound = async (cp: TestControlPlane) => {
    await cp.running.runHeartbeatDeadlines();
    await cp.running.runHeartbeatDeadlines();
  };
  /** Sets the clock, runs a deadline round, and answers the heartbeat then. */
  const at = async (iso: string, id: string) => {
    clock.set(iso);
    await runRound(timed);
    return read(id);
  };
  const create = async (body: Record<string, unknown>) => {
    const created = await timed.api.post('/heartbeats', body, u.token);
    expect(created.status, created.text).to.equal(201);
    return created.body;
  };

  it('expects a run skipped by spring-forward right after the gap, and turns RED only past it + grace (Europe/Berlin)', async () => {
    clock.set('2026-03-28T12:00:00Z');
    const hb = await create({ name: 'berlin-nightly', schedule: '30 2 * * *', timezone: 'Europe/Berlin', grace_seconds: 600 });
    expect(hb).to.include({ schedule: '30 2 * * *', timezone: 'Europe/Berlin', interval_seconds: null, grace_seconds: 600, max_runtime_seconds: null, status: null });
    // No 02:30 on 2026-03-29: the run is at 03:00 CEST (01:00Z), its deadline 01:10Z.
    expect(hb.next_expected_at).to.equal('2026-03-29T01:00:00.000Z');

    expect((await at('2026-03-29T01:08:00Z', hb.id)).status, 'within grace').to.equal(null);
    const missed = await at('2026-03-29T01:10:30Z', hb.id);
    expect(missed.status).to.equal('RED');
    expect(missed.next_expected_at, 'the next night, 02:30 CEST').to.equal('2026-03-30T00:30:00.000Z');
    expect(await lastMessage(hb.service_id)).to.equal('no ping since the run due at 2026-03-29T01:00:00.000Z (2026-03-29 03:00 Europe/Berlin)');

    // One failing result per missed run, not one per round.
    await runRound(timed);
    expect((await timed.api.get(`/services/${hb.service_id}/checks`, u.token)).body).to.have.length(1);

    clock.set('2026-03-29T01:20:00Z');
    expect((await timed.api.get(`/heartbeat/${hb.key}`)).status).to.equal(200);
    const pinged = await read(hb.id);
    expect(pinged).to.include({ status: 'GREEN', next_expected_at: '2026-03-30T00:30:00.000Z' });
    expect(pinged.last_ping_at).to.match(/^2026-03-29T01:20:/);
  });

  it('follows 09:00 New York from 13:00Z to 14:00Z at fall-back, so 13:06Z is not late and 14:05Z is', async () => {
    clock.set('2026-10-31T14:00:00Z');
    const hb = await create({ name: 'ny-report', schedule: '0 9 * * *', timezone: 'America/New_York', grace_seconds: 300 });
    expect(hb.next_expected_at).to.equal('2026-11-01T14:00:00.000Z');
    // 13:05Z would be past the deadline in summer time; on 2026-11-01 it is early.
    expect((await at('2026-11-01T13:06:00Z', hb.id)).status).to.equal(null);
    expect((await at('2026-11-01T14:04:00Z', hb.id)).status).to.equal(null);
    const missed = await at('2026-11-01T14:05:30Z', hb.id);
    expect(missed).to.include({ status: 'RED', next_expected_at: '2026-11-02T14:00:00.000Z' });
    expect(await lastMessage(hb.service_id)).to.equal('no ping since the run due at 2026-11-01T14:00:00.000Z (2026-11-01 09:00 America/New_York)');

    clock.set('2026-11-02T14:01:00Z');
    expect((await timed.api.post(`/heartbeat/${hb.key}`, {})).status).to.equal(200);
    expect(await read(hb.id)).to.include({ status: 'GREEN', next_expected_at: '2026-11-03T14:00:00.000Z' });
    expect((await at('2026-11-02T14:06:00Z', hb.id)).status, 'the ping covered the run').to.equal('GREEN');
  });

  it('turns a started run RED past its max runtime, and a finished one does not', async () => {
    clock.set('2026-05-04T08:00:00Z');
    const hb = await create({ name: 'etl', interval_seconds: 86_400, max_runtime_seconds: 60 });
    expect(hb).to.include({ interval_seconds: 86_400, schedule: null, timezone: null, max_runtime_seconds: 60, last_started_at: null, next_expected_at: null });
    expect((await timed.api.post(`/heartbeat/${hb.key}/start`, {})).status).to.equal(200);
    expect((await read(hb.id)).last_started_at).to.match(/^2026-05-04T08:00:/);
    expect((await at('2026-05-04T08:00:50Z', hb.id)).status).to.equal(null);
    expect((await at('2026-05-04T08:01:30Z', hb.id)).status).to.equal('RED');
    expect(await lastMessage(hb.service_id)).to.match(/^started at 2026-05-04T08:00:\d\d\.\d+Z, not finished within 60 s$/);

    expect((await timed.api.post(`/heartbeat/${hb.key}`, {})).status).to.equal(200);
    const pinged = await read(hb.id);
    expect(pinged.status).to.equal('GREEN');
    expect(pinged.next_expected_at).to.match(/^2026-05-05T08:01:/);

    clock.set('2026-05-05T08:00:00Z');
    await timed.api.post(`/heartbeat/${hb.key}/start`, {});
    await timed.api.post(`/heartbeat/${hb.key}`, {});
    expect((await at('2026-05-05T08:05:00Z', hb.id)).status, 'finished in time').to.equal('GREEN');
  });

  it('records one failing result per missed run and per overrun when two replicas claim at once', async () => {
    const other = await startTestControlPlane({ start: { clock } });
    try {
      clock.set('2026-07-01T00:00:00Z');
      const hbs = await Promise.all([1, 2, 3].map((n) => create({ name: `hourly-${n}`, schedule: '0 * * * *', grace_seconds: 60, max_runtime_seconds: 30 })));
      for (const hb of hbs) expect((await timed.api.post(`/heartbeat/${hb.key}/start`, {})).status).to.equal(200);
      clock.set('2026-07-01T01:01:30Z');
      // With the jobs' own rounds running too: whoever claims a deadline, it is claimed once.
      await Promise.all([runRound(timed), runRound(other)]);
      for (const hb of hbs) {
        const messages = (await timed.api.get(`/services/${hb.service_id}/checks`, u.token)).body.map((c: { message: string }) => c.message);
        expect(messages.filter((m: string) => m.startsWith('no ping since the run due at 2026-07-01T01:00:00.000Z')), hb.name).to.have.length(1);
        expect(messages.filter((m: string) => m.startsWith('started at ')), hb.name).to.have.length(1);
        expect((await read(hb.id)).next_expected_at).to.equal('2026-07-01T02:00:00.000Z');
      }
    } finally {
      await other.stop();
    }
  });

  it('validates schedules, time zones and modes with readable messages', async () => {
    const refused = async (body: Record<string, unknown>, path: string, message: RegExp) => {
      const res = await timed.api.post('/heartbeats', { name: 'bad', ...body }, u.token);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.details?.[0]?.path, JSON.stringify(res.body)).to.equal(path);
      expect(res.body.error).to.match(message);
    };
    await refused({ schedule: '61 * * * *' }, 'schedule', /schedule: schedule is not a valid cron expression: .*minute/);
    await refused({ schedule: 'every day' }, 'schedule', /not a valid cron expression/);
    await refused({ schedule: '0 0 30 2 *' }, 'schedule', /never fires/);
    await refused({ schedule: '0 3 * * *', timezone: 'Mars/Olympus' }, 'timezone', /timezone must be an IANA time zone, e.g. Europe\/Berlin/);
    await refused({ schedule: '0 3 * * *', interval_seconds: 60 }, 'schedule', /either interval_seconds or schedule, not both/);
    await refused({}, 'interval_seconds', /interval_seconds or schedule is required/);
    await refused({ interval_seconds: 60, timezone: 'Europe/Berlin' }, 'timezone', /only to a schedule/);
    await refused({ interval_seconds: 60, max_runtime_seconds: 8 * 86_400 }, 'max_runtime_seconds', /at most 604800/);

    expect((await create({ name: 'nick', schedule: '@daily', timezone: 'europe/berlin' })).timezone, 'the canonical name').to.equal('Europe/Berlin');
    expect((await create({ name: 'seconds', schedule: '0 */5 * * * *' })).timezone).to.equal('UTC');
  });

  it('switches between interval and schedule on update, clearing the other', async () => {
    clock.set('2026-06-01T10:00:00Z');
    const hb = await create({ name: 'switch', interval_seconds: 3600 });
    const toCron = await timed.api.put(`/heartbeats/${hb.id}`, { schedule: '0 12 * * *', timezone: 'Asia/Tokyo' }, u.token);
    expect(toCron.status, toCron.text).to.equal(200);
    expect(toCron.body).to.include({ interval_seconds: null, schedule: '0 12 * * *', timezone: 'Asia/Tokyo', next_expected_at: '2026-06-02T03:00:00.000Z' });
    const regraced = await timed.api.put(`/heartbeats/${hb.id}`, { ...toCron.body, grace_seconds: 5, max_runtime_seconds: 120 }, u.token);
    expect(regraced.body, 'a read answer sent back').to.include({ grace_seconds: 5, max_runtime_seconds: 120, next_expected_at: '2026-06-02T03:00:00.000Z' });
    expect((await timed.api.put(`/heartbeats/${hb.id}`, { interval_seconds: 60, timezone: 'UTC' }, u.token)).status).to.equal(400);
    expect((await timed.api.put(`/heartbeats/${hb.id}`, { schedule: null }, u.token)).status, 'no mode left').to.equal(400);
    const back = await timed.api.put(`/heartbeats/${hb.id}`, { interval_seconds: 600 }, u.token);
    expect(back.body).to.include({ interval_seconds: 600, schedule: null, timezone: null, next_expected_at: null, max_runtime_seconds: 120 });
    expect((await timed.api.put(`/heartbeats/${hb.id}`, { timezone: 'Europe/Paris' }, u.token)).status).to.equal(400);
  });
});
