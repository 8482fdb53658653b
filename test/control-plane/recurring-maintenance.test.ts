// Recurring maintenance windows (issue 39): a cron schedule in a time zone with a duration,
// against the real control plane and database. A movable clock stands at instants on both
// sides of daylight-saving changes; a scripted agent sends failing results, and whether an
// alert opens says whether the occurrence held it.
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { MovableClock } from '../support/movable-clock.js';
import { openApiDocument } from '../support/openapi-contract.js';
import { sql } from '../support/sql.js';

describe('recurring maintenance windows', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  const clock = new MovableClock();

  before(async () => {
    cp = await startTestControlPlane({ start: { clock } });
    agent = await connectReadyAgent(cp.running);
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
  });

  async function organization(label: string): Promise<TestUser> {
    const user = await cp.api.newUser(label);
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
    return user;
  }
  async function created(user: TestUser, path: string, body: Record<string, unknown>) {
    const r = await cp.api.post(path, body, user.token);
    expect(r.status, r.text).to.equal(201);
    return r.body;
  }
  const window = (user: TestUser, body: Record<string, unknown>) => created(user, '/maintenance-windows', { name: 'patch window', ...body });
  const service = (user: TestUser, name: string) => created(user, '/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' });
  const read = async (user: TestUser, id: string) => (await cp.api.get(`/maintenance-windows/${id}`, user.token)).body;

  /** A new service fails at `at`: whether an alert opened for it (the org has a rule for every service). */
  async function alertOpensAt(user: TestUser, at: string, serviceId?: string): Promise<boolean> {
    clock.set(at);
    const id = serviceId ?? (await service(user, `svc ${at}`)).id;
    await agent.sendResults([{ serviceId: id, ok: false, message: 'connection refused' }]);
    const alerts = (await cp.api.get(`/alerts?service_id=${id}`, user.token)).body as { service_id: string }[];
    return alerts.length > 0;
  }

  describe('holding alerts', () => {
    it('holds alerts during each weekly occurrence, in local time across the spring-forward change (Europe/Berlin)', async () => {
      const user = await organization('maint-berlin');
      await created(user, '/alert-rules', { name: 'every service', severity: 'critical' });
      // Every Sunday 02:30 Berlin time for an hour. On 2026-03-29 the clocks jump from 02:00 to
      // 03:00, so 02:30 does not exist that day: the occurrence opens at 03:00 CEST instead.
      await window(user, { schedule: '30 2 * * 0', timezone: 'Europe/Berlin', duration_minutes: 60 });
      const expectations: [string, boolean][] = [
        // The week before, CET (UTC+1): 01:30Z to 02:30Z.
        ['2026-03-22T01:25:00Z', true],
        ['2026-03-22T01:31:00Z', false],
        ['2026-03-22T02:25:00Z', false],
        ['2026-03-22T02:31:00Z', true],
        // The day of the change: 03:00 CEST is 01:00Z, for an hour of elapsed time.
        ['2026-03-29T00:35:00Z', true],
        ['2026-03-29T01:05:00Z', false],
        ['2026-03-29T01:55:00Z', false],
        ['2026-03-29T02:05:00Z', true],
        // The week after, CEST (UTC+2): 00:30Z to 01:30Z; a fixed UTC offset would be an hour late.
        ['2026-04-05T00:25:00Z', true],
        ['2026-04-05T00:35:00Z', false],
        ['2026-04-05T01:25:00Z', false],
        ['2026-04-05T01:35:00Z', true],
        // Not on other days.
        ['2026-04-06T00:35:00Z', true],
      ];
      const seen: [string, boolean][] = [];
      for (const [at] of expectations) seen.push([at, await alertOpensAt(user, at)]);
      expect(seen).to.deep.equal(expectations);
    });

    it('holds alerts of the services it names only, and never those of another organization', async () => {
      const user = await organization('maint-scoped');
      const other = await organization('maint-neighbour');
      await created(user, '/alert-rules', { name: 'every service', severity: 'critical' });
      const covered = await service(user, 'covered');
      const uncovered = await service(user, 'uncovered');
      // Daily at 03:00 New York time for two hours, for one service.
      await window(user, { schedule: '0 3 * * *', timezone: 'America/New_York', duration_minutes: 120, service_ids: [covered.id] });
      // The neighbour's window is open all the time and covers all of its services.
      const always = await window(other, { schedule: '* * * * *', duration_minutes: 10_080 });
      clock.set('2026-07-01T08:00:00Z'); // 04:00 EDT
      expect((await read(other, always.id)).active).to.equal(true);

      expect(await alertOpensAt(user, '2026-07-01T08:00:00Z', covered.id)).to.equal(false);
      expect(await alertOpensAt(user, '2026-07-01T08:00:00Z', uncovered.id)).to.equal(true);
      // After the occurrence, the covered service's next failure opens its alert.
      expect(await alertOpensAt(user, '2026-07-01T09:00:00Z', covered.id)).to.equal(true);
    });

    it('stops holding alerts once the window is switched to a one-off window in the past', async () => {
      const user = await organization('maint-switch-hold');
      await created(user, '/alert-rules', { name: 'every service', severity: 'critical' });
      const w = await window(user, { schedule: '0 * * * *', duration_minutes: 30 });
      expect(await alertOpensAt(user, '2026-08-01T10:10:00Z')).to.equal(false);
      const switched = await cp.api.put(`/maintenance-windows/${w.id}`, { starts_at: '2026-08-01T08:00:00Z', ends_at: '2026-08-01T09:00:00Z' }, user.token);
      expect(switched.status, switched.text).to.equal(200);
      expect(await alertOpensAt(user, '2026-08-01T10:15:00Z')).to.equal(true);
    });
  });

  describe('the window object', () => {
    it('shows both forms, active and the next occurrences, the one under way first', async () => {
      const user = await organization('maint-occurrences');
      // 01:30 New York time happens twice on 2026-11-01 (05:30Z in EDT, 06:30Z in EST): once here.
      clock.set('2026-10-25T05:45:00Z');
      const w = await window(user, { schedule: '30 1 * * 0', timezone: 'america/new_york', duration_minutes: 45 });
      expect(w).to.include({ schedule: '30 1 * * 0', timezone: 'America/New_York', duration_minutes: 45, starts_at: null, ends_at: null, active: true });
      expect(w.next_occurrences).to.deep.equal([
        { starts_at: '2026-10-25T05:30:00.000Z', ends_at: '2026-10-25T06:15:00.000Z' },
        { starts_at: '2026-11-01T05:30:00.000Z', ends_at: '2026-11-01T06:15:00.000Z' },
        { starts_at: '2026-11-08T06:30:00.000Z', ends_at: '2026-11-08T07:15:00.000Z' },
        { starts_at: '2026-11-15T06:30:00.000Z', ends_at: '2026-11-15T07:15:00.000Z' },
        { starts_at: '2026-11-22T06:30:00.000Z', ends_at: '2026-11-22T07:15:00.000Z' },
      ]);

      clock.set('2026-10-25T06:15:00Z');
      const after = await read(user, w.id);
      expect(after.active).to.equal(false);
      expect(after.next_occurrences[0]).to.deep.equal({ starts_at: '2026-11-01T05:30:00.000Z', ends_at: '2026-11-01T06:15:00.000Z' });
      expect(after.next_occurrences).to.have.length(5);
    });

    it('gives a recurring window UTC by default, and lists a one-off window as its own occurrence until it ends', async () => {
      const user = await organization('maint-one-off');
      clock.set('2026-06-01T12:00:00Z');
      const daily = await window(user, { schedule: '@daily', duration_minutes: 30 });
      expect(daily).to.include({ timezone: 'UTC', active: false });
      expect(daily.next_occurrences[0]).to.deep.equal({ starts_at: '2026-06-02T00:00:00.000Z', ends_at: '2026-06-02T00:30:00.000Z' });

      const once = await window(user, { starts_at: '2026-06-01T13:00:00Z', ends_at: '2026-06-01T14:00:00Z' });
      expect(once).to.include({ schedule: null, timezone: null, duration_minutes: null, active: false, starts_at: '2026-06-01T13:00:00.000Z' });
      expect(once.next_occurrences).to.deep.equal([{ starts_at: '2026-06-01T13:00:00.000Z', ends_at: '2026-06-01T14:00:00.000Z' }]);
      clock.set('2026-06-01T13:30:00Z');
      expect((await read(user, once.id)).active).to.equal(true);
      clock.set('2026-06-01T14:00:00Z');
      expect(await read(user, once.id)).to.deep.include({ active: false, next_occurrences: [] });
    });
  });

  describe('the OpenAPI document', () => {
    it('describes both forms in requests and answers, and the listed occurrences', () => {
      const doc = openApiDocument();
      const window = doc.components.schemas.MaintenanceWindow;
      expect(Object.keys(window.properties)).to.include.members(['starts_at', 'ends_at', 'schedule', 'timezone', 'duration_minutes', 'active', 'next_occurrences']);
      expect(window.required).to.include.members(['schedule', 'timezone', 'duration_minutes', 'next_occurrences']);
      const create = doc.paths['/api/v1/maintenance-windows'].post.requestBody.content['application/json'].schema;
      expect(create.required).to.deep.equal(['name']);
      expect(JSON.stringify(create.properties.duration_minutes)).to.contain('"maximum":10080');
      expect(Object.keys(create.properties)).to.include.members(['starts_at', 'ends_at', 'schedule', 'timezone', 'duration_minutes', 'service_ids']);
    });
  });

  describe('validation', () => {
    it('refuses a mix of forms, a missing part or a bad value with a 400 naming the field', async () => {
      const user = await organization('maint-invalid');
      const cases: [Record<string, unknown>, string][] = [
        [{ starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-01T01:00:00Z', schedule: '0 3 * * *', duration_minutes: 60 }, 'schedule'],
        [{ starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-01T01:00:00Z', timezone: 'Europe/Berlin' }, 'timezone'],
        [{ starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-01T01:00:00Z', duration_minutes: 60 }, 'duration_minutes'],
        [{ schedule: '0 3 * * *' }, 'duration_minutes'],
        [{ duration_minutes: 60 }, 'schedule'],
        [{ timezone: 'UTC', duration_minutes: 60 }, 'schedule'],
        [{ starts_at: '2030-01-01T00:00:00Z' }, 'ends_at'],
        [{}, 'starts_at'],
        [{ schedule: 'every sunday', duration_minutes: 60 }, 'schedule'],
        [{ schedule: '0 3 31 2 *', duration_minutes: 60 }, 'schedule'],
        [{ schedule: '@reboot', duration_minutes: 60 }, 'schedule'],
        [{ schedule: '0 3 * * *', timezone: 'Mars/Olympus', duration_minutes: 60 }, 'timezone'],
        [{ schedule: '0 3 * * *', duration_minutes: 0 }, 'duration_minutes'],
        [{ schedule: '0 3 * * *', duration_minutes: 10_081 }, 'duration_minutes'],
        [{ schedule: '0 3 * * *', duration_minutes: 1.5 }, 'duration_minutes'],
        [{ schedule: '0 3 * * *', duration_minutes: '60' }, 'duration_minutes'],
      ];
      for (const [body, field] of cases) {
        const r = await cp.api.post('/maintenance-windows', { name: 'x', ...body }, user.token);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.body.error, JSON.stringify(body)).to.contain(field);
        expect(r.body.details.map((d: { path: string }) => d.path), JSON.stringify(body)).to.include(field);
      }
      expect((await cp.api.get('/maintenance-windows', user.token)).body).to.deep.equal([]);
      // The edges of the range are fine.
      await window(user, { schedule: '0 3 * * *', duration_minutes: 1 });
      await window(user, { schedule: '0 3 * * 1', duration_minutes: 10_080 });
    });
  });

  describe('updates', () => {
    it('switch between the forms, completing a form from the stored window or naming what is missing', async () => {
      const user = await organization('maint-updates');
      clock.set('2026-05-01T00:00:00Z');
      const put = (id: string, body: Record<string, unknown>) => cp.api.put(`/maintenance-windows/${id}`, body, user.token);
      const once = await window(user, { starts_at: '2026-05-02T00:00:00Z', ends_at: '2026-05-02T02:00:00Z' });

      // One-off → recurring needs both schedule and duration_minutes.
      const half = await put(once.id, { schedule: '0 4 * * 6' });
      expect(half.status).to.equal(400);
      expect(half.body.details[0].path).to.equal('duration_minutes');
      expect((await put(once.id, { timezone: 'Europe/Paris' })).body.details[0].path).to.equal('schedule');
      const recurring = await put(once.id, { schedule: '0 4 * * 6', duration_minutes: 90, timezone: 'Europe/Paris' });
      expect(recurring.status, recurring.text).to.equal(200);
      expect(recurring.body).to.include({ starts_at: null, ends_at: null, schedule: '0 4 * * 6', timezone: 'Europe/Paris', duration_minutes: 90 });
      expect(recurring.body.next_occurrences[0]).to.deep.equal({ starts_at: '2026-05-02T02:00:00.000Z', ends_at: '2026-05-02T03:30:00.000Z' });

      // Within a form, one field at a time; the window read back goes back unchanged.
      expect((await put(once.id, { duration_minutes: 30 })).body).to.include({ schedule: '0 4 * * 6', timezone: 'Europe/Paris', duration_minutes: 30 });
      expect((await put(once.id, { timezone: 'UTC' })).body).to.include({ schedule: '0 4 * * 6', timezone: 'UTC', duration_minutes: 30 });
      const current = await read(user, once.id);
      const roundTrip = await put(once.id, current);
      expect(roundTrip.status, roundTrip.text).to.equal(200);
      expect({ ...roundTrip.body, updated_at: current.updated_at }).to.deep.equal(current);
      expect((await put(once.id, { schedule: null })).body.details[0].path).to.equal('schedule');
      expect((await put(once.id, { starts_at: '2026-05-03T00:00:00Z', duration_minutes: 10 })).status).to.equal(400);

      // Recurring → one-off needs both ends.
      expect((await put(once.id, { starts_at: '2026-05-03T00:00:00Z' })).body.details[0].path).to.equal('ends_at');
      expect((await put(once.id, { starts_at: '2026-05-03T02:00:00Z', ends_at: '2026-05-03T01:00:00Z' })).body.details[0].path).to.equal('ends_at');
      const back = await put(once.id, { ...current, schedule: null, timezone: null, duration_minutes: null, starts_at: '2026-05-03T00:00:00Z', ends_at: '2026-05-03T01:00:00Z' });
      expect(back.status, back.text).to.equal(200);
      expect(back.body).to.include({ schedule: null, timezone: null, duration_minutes: null, starts_at: '2026-05-03T00:00:00.000Z', ends_at: '2026-05-03T01:00:00.000Z' });
      expect((await put(once.id, { ends_at: '2026-05-03T03:00:00Z' })).body.ends_at).to.equal('2026-05-03T03:00:00.000Z');
      expect((await put(once.id, { ends_at: null })).body.details[0].path).to.equal('ends_at');
      expect((await put(once.id, { duration_minutes: 10 })).body.details[0].path).to.equal('schedule');
      expect(await read(user, once.id)).to.include({ starts_at: '2026-05-03T00:00:00.000Z', ends_at: '2026-05-03T03:00:00.000Z', schedule: null });
    });
  });
});
