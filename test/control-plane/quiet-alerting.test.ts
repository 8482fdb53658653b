// Alerting people can live with (issue 39): recovery thresholds, reminders, silences, rules by
// selector, flapping and paused services, driven by results a scripted agent sends and
// heard by a webhook receiver on loopback.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { MovableClock } from '../support/movable-clock.js';
import { sql } from '../support/sql.js';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';

describe('quiet alerting', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let receiver: HttpReceiver;
  const clock = new MovableClock();

  before(async () => {
    receiver = await startHttpReceiver();
    cp = await startTestControlPlane({ start: { clock, retry: { maxAttempts: 3, baseDelayMs: 50 }, jobIntervalMs: 100 }, env: { FLAP_CHANGES: '4', FLAP_WINDOW_MINUTES: '30' } });
    agent = await connectReadyAgent(cp.running);
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
    await receiver?.close();
  });

  async function setup(label: string) {
    const user = await cp.api.newUser(label);
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
    const hook = `/${label}-${randomUUID()}`;
    const channel = (await cp.api.post('/notification-channels', { name: 'hook', channel_type: 'webhook', config: { url: `${receiver.url}${hook}` } }, user.token)).body;
    return { user, channel, hook };
  }
  const service = async (u: TestUser, name: string, fields: Record<string, unknown> = {}) => {
    const r = await cp.api.post('/services', { name, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', ...fields }, u.token);
    expect(r.status, r.text).to.equal(201);
    return r.body;
  };
  const rule = async (u: TestUser, fields: Record<string, unknown>) => {
    const r = await cp.api.post('/alert-rules', { name: 'rule', severity: 'critical', ...fields }, u.token);
    expect(r.status, r.text).to.equal(201);
    return r.body;
  };
  const fail = (serviceId: string) => agent.sendResults([{ serviceId, ok: false, message: 'connection refused' }]);
  const pass = (serviceId: string) => agent.sendResults([{ serviceId, ok: true, responseTimeMs: 5 }]);
  const alertsOf = async (u: TestUser, query = '') => (await cp.api.get(`/alerts${query}`, u.token)).body as any[];
  const heard = (hook: string, event?: string) => receiver.requests.filter((q) => q.url === hook && (!event || q.json?.event === event));
  /** Lets the dispatcher send what is due, then answers what the hook heard. */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

  describe('recovery threshold', () => {
    it('resolves an alert only after the rule asks for that many GREEN results in a row', async () => {
      const { user } = await setup('recovery');
      const svc = await service(user, 'recovery-svc');
      await rule(user, { service_id: svc.id, condition: { recovery_threshold: 3 } });
      await fail(svc.id);
      await pass(svc.id);
      await pass(svc.id);
      expect((await alertsOf(user)).map((a) => a.status)).to.deep.equal(['firing']);
      // A failure between restarts the count.
      await fail(svc.id);
      await pass(svc.id);
      await pass(svc.id);
      expect(await alertsOf(user)).to.have.length(1);
      await pass(svc.id);
      expect(await alertsOf(user)).to.have.length(0);
      expect((await alertsOf(user, '?status=resolved'))[0].resolved_by).to.equal(null);
    });

    it('refuses thresholds and intervals out of range', async () => {
      const { user } = await setup('recovery-invalid');
      for (const condition of [{ recovery_threshold: 0 }, { recovery_threshold: 21 }, { repeat_interval_minutes: 0 }, { repeat_interval_minutes: 10_081 }, { no_data: 'yes' }]) {
        const r = await cp.api.post('/alert-rules', { name: 'x', severity: 'info', condition }, user.token);
        expect(r.status, JSON.stringify(condition)).to.equal(400);
        expect(r.body.code).to.equal('VALIDATION_FAILED');
      }
    });
  });

  describe('reminders', () => {
    it('tells the channels again at the interval while the alert fires unacknowledged, saying for how long', async () => {
      const { user, hook } = await setup('remind');
      const svc = await service(user, 'remind-svc');
      await rule(user, { service_id: svc.id, condition: { repeat_interval_minutes: 30 } });
      await fail(svc.id);
      const [alert] = await alertsOf(user);
      await receiver.waitFor((q) => q.url === hook && q.json?.event === 'alert_fired', 'the first notification');
      expect(await cp.running.runReminders()).to.equal(0);
      clock.advance(30 * 60_000 + 1_000);
      expect(await cp.running.runReminders()).to.equal(1);
      const reminder = await receiver.waitFor((q) => q.url === hook && q.json?.event === 'alert_reminder', 'the reminder');
      expect(reminder.json.alert.id).to.equal(alert.id);
      expect(reminder.json.text).to.match(/^\[STILL FIRING\].*firing for 30 min/);
      clock.advance(30 * 60_000);
      expect(await cp.running.runReminders()).to.equal(1);
      await receiver.waitFor((q) => q.url === hook && q.json?.event === 'alert_reminder' && /firing for 1 h/.test(q.json.text), 'the second reminder');
      await cp.api.post(`/alerts/${alert.id}/acknowledge`, undefined, user.token);
      clock.advance(60 * 60_000);
      expect(await cp.running.runReminders()).to.equal(0);
    });
  });

  describe('silences', () => {
    it('keeps the alerts of services with the silenced tags quiet, and notifies what still fires when the silence ends', async () => {
      const { user, hook } = await setup('silence-tags');
      const db = await service(user, 'silence-db', { tags: ['db', 'eu'] });
      const web = await service(user, 'silence-web', { tags: ['web', 'eu'] });
      await rule(user, {});
      const created = await cp.api.post('/silences', { matchers: { tags: ['db', 'eu'] }, ends_at: new Date(clock.now().getTime() + 3_600_000).toISOString(), comment: 'database upgrade' }, user.token);
      expect(created.status, created.text).to.equal(201);
      const silence = created.body;
      expect(silence).to.include({ state: 'active', comment: 'database upgrade', created_by: user.userId });
      await fail(db.id);
      await fail(web.id);
      const alerts = await alertsOf(user);
      const dbAlert = alerts.find((a) => a.service_id === db.id);
      expect(dbAlert).to.include({ status: 'firing', silenced_by: silence.id });
      expect(alerts.find((a) => a.service_id === web.id).silenced_by).to.equal(null);
      await receiver.waitFor((q) => q.url === hook && q.json?.alert?.service_id === web.id, 'the unsilenced alert');
      await settle();
      expect(heard(hook).filter((q) => q.json.alert.service_id === db.id)).to.have.length(0);

      // The silence ends on its own: the alert still firing is heard now.
      clock.advance(3_600_000 + 1_000);
      await cp.running.runSilenceBoundaries();
      const late = await receiver.waitFor((q) => q.url === hook && q.json?.alert?.service_id === db.id, 'the alert after the silence');
      expect(late.json).to.include({ event: 'alert_fired' });
      expect(late.json.alert.silenced_by).to.equal(null);
      expect((await cp.api.get(`/silences/${silence.id}`, user.token)).body.state).to.equal('expired');
      expect((await cp.api.get('/silences', user.token)).body).to.have.length(0);
      expect((await cp.api.get('/silences?state=expired', user.token)).body.map((s: any) => s.id)).to.deep.equal([silence.id]);
    });

    it('silences alerts already firing when made, and notifies them when expired early', async () => {
      const { user, hook } = await setup('silence-expire');
      const svc = await service(user, 'silence-expire-svc', { environment: 'staging' });
      await rule(user, { service_id: svc.id });
      await fail(svc.id);
      await receiver.waitFor((q) => q.url === hook && q.json?.event === 'alert_fired', 'the alert');
      const silence = (await cp.api.post('/silences', { matchers: { environment: 'staging' }, ends_at: new Date(clock.now().getTime() + 4 * 3_600_000).toISOString(), comment: 'snooze' }, user.token)).body;
      const [alert] = await alertsOf(user);
      expect(alert.silenced_by).to.equal(silence.id);
      const before = heard(hook).length;
      const expired = await cp.api.post(`/silences/${silence.id}/expire`, undefined, user.token);
      expect(expired.body.state).to.equal('expired');
      await receiver.waitFor((q) => q.url === hook && q.json?.event === 'alert_fired' && receiver.requests.indexOf(q) >= before, 'the alert again');
      expect((await alertsOf(user))[0].silenced_by).to.equal(null);
    });

    it('starts a silence made for later when its time comes', async () => {
      const { user, hook } = await setup('silence-later');
      const svc = await service(user, 'silence-later-svc');
      await rule(user, { service_id: svc.id });
      const startsAt = new Date(clock.now().getTime() + 3_600_000);
      const silence = (await cp.api.post('/silences', { matchers: { service_ids: [svc.id] }, starts_at: startsAt.toISOString(), ends_at: new Date(startsAt.getTime() + 3_600_000).toISOString(), comment: 'tonight' }, user.token)).body;
      expect(silence.state).to.equal('pending');
      await fail(svc.id);
      await receiver.waitFor((q) => q.url === hook, 'the alert before the silence');
      clock.advance(3_600_000 + 1_000);
      await cp.running.runSilenceBoundaries();
      expect((await alertsOf(user))[0].silenced_by).to.equal(silence.id);
    });

    it('validates silences and keeps them to their organization and role', async () => {
      const { user } = await setup('silence-invalid');
      const other = await setup('silence-other');
      const ends = new Date(clock.now().getTime() + 3_600_000).toISOString();
      for (const body of [
        { ends_at: ends, comment: 'x' },
        { matchers: {}, ends_at: ends, comment: 'x' },
        { matchers: { tags: [] }, ends_at: ends, comment: 'x' },
        { matchers: { colour: 'red' }, ends_at: ends, comment: 'x' },
        { matchers: { tags: ['a'] }, comment: 'x' },
        { matchers: { tags: ['a'] }, ends_at: ends },
        { matchers: { tags: ['a'] }, ends_at: new Date(clock.now().getTime() - 1000).toISOString(), comment: 'x' },
        { matchers: { tags: ['a'] }, starts_at: ends, ends_at: ends, comment: 'x' },
      ]) {
        const r = await cp.api.post('/silences', body, user.token);
        expect(r.status, JSON.stringify(body)).to.equal(400);
        expect(r.body.code).to.equal('VALIDATION_FAILED');
      }
      const silence = (await cp.api.post('/silences', { matchers: { tags: ['a'] }, ends_at: ends, comment: 'x' }, user.token)).body;
      expect((await cp.api.get(`/silences/${silence.id}`, other.user.token)).status).to.equal(404);
      expect((await cp.api.post(`/silences/${silence.id}/expire`, undefined, other.user.token)).status).to.equal(404);
      const viewer = await cp.api.keyWithRole(user, 'viewer');
      expect((await cp.api.get('/silences', viewer)).body).to.have.length(1);
      expect((await cp.api.post('/silences', { matchers: { tags: ['a'] }, ends_at: ends, comment: 'x' }, viewer)).status).to.equal(403);
      expect((await cp.api.post(`/silences/${silence.id}/expire`, undefined, viewer)).status).to.equal(403);
      const edited = await cp.api.put(`/silences/${silence.id}`, { comment: 'longer', ends_at: new Date(clock.now().getTime() + 7_200_000).toISOString() }, user.token);
      expect(edited.body).to.include({ comment: 'longer', state: 'active' });
      expect((await cp.api.del(`/silences/${silence.id}`, user.token)).status).to.equal(204);
      expect((await cp.api.get(`/silences/${silence.id}`, user.token)).status).to.equal(404);
    });
  });

  describe('rules by selector', () => {
    it('covers the services it selects, including one created after the rule', async () => {
      const { user } = await setup('selector');
      const r = await rule(user, { condition: { selector: { tags: ['payments'], environment: 'production' } } });
      const later = await service(user, 'selector-later', { tags: ['payments', 'eu'], environment: 'production' });
      const staging = await service(user, 'selector-staging', { tags: ['payments'], environment: 'staging' });
      await fail(later.id);
      await fail(staging.id);
      const alerts = await alertsOf(user);
      expect(alerts.map((a) => [a.service_id, a.alert_rule_id])).to.deep.equal([[later.id, r.id]]);
    });

    it('refuses a rule with both service_id and a selector', async () => {
      const { user } = await setup('selector-both');
      const svc = await service(user, 'selector-both-svc');
      const both = await cp.api.post('/alert-rules', { name: 'x', severity: 'info', service_id: svc.id, condition: { selector: { tags: ['a'] } } }, user.token);
      expect(both.status).to.equal(400);
      const scoped = await rule(user, { service_id: svc.id });
      expect((await cp.api.put(`/alert-rules/${scoped.id}`, { condition: { selector: { tags: ['a'] } } }, user.token)).status).to.equal(400);
      expect((await cp.api.put(`/alert-rules/${scoped.id}`, { service_id: null, condition: { selector: { tags: ['a'] } } }, user.token)).status).to.equal(200);
      expect((await cp.api.post('/alert-rules', { name: 'x', severity: 'info', condition: { selector: { check_types: ['GOPHER'] } } }, user.token)).status).to.equal(400);
    });
  });

  describe('flapping', () => {
    it('marks a service changing status too often as flapping and tells people once instead of at each change', async () => {
      const { user, hook } = await setup('flap');
      const svc = await service(user, 'flap-svc');
      await rule(user, { service_id: svc.id });
      // FLAP_CHANGES is 4 here: the fifth change (a recovery) makes it flap, with its alert open.
      for (let i = 0; i < 3; i++) {
        await fail(svc.id);
        await pass(svc.id);
      }
      await receiver.waitFor((q) => q.url === hook && q.json?.event === 'alert_flapping', 'the flapping notice');
      for (let i = 0; i < 3; i++) {
        await fail(svc.id);
        await pass(svc.id);
      }
      await settle();
      const told = heard(hook).map((q) => q.json.event);
      // Each change was told until the fifth, then one flapping notice, then nothing.
      expect(told).to.deep.equal(['alert_fired', 'alert_resolved', 'alert_fired', 'alert_resolved', 'alert_fired', 'alert_flapping']);
      expect((await alertsOf(user)).map((a) => a.status)).to.deep.equal(['firing']);
      expect((await cp.api.get(`/services/${svc.id}`, user.token)).body.flapping).to.equal(true);
    });
  });

  describe('paused services', () => {
    it('stores a late result of a paused service but moves nothing and opens no alert', async () => {
      const { user } = await setup('paused');
      const svc = await service(user, 'paused-svc');
      await rule(user, {});
      await pass(svc.id);
      await sql('update services set paused = true where id = $1', [svc.id]);
      await fail(svc.id);
      expect(await alertsOf(user)).to.have.length(0);
      const [row] = await sql<{ status: string }>('select status from services where id = $1', [svc.id]);
      expect(row!.status).to.equal('GREEN');
      const [count] = await sql<{ n: string }>('select count(*) as n from check_results where service_id = $1', [svc.id]);
      expect(Number(count!.n)).to.equal(2);
    });
  });
});
