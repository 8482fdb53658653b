// Rules, the alert lifecycle, deduplication under concurrency, auto-resolve, maintenance
// windows and escalation, driven by results a scripted agent sends.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, connectScriptedAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { MovableClock } from '../support/movable-clock.js';
import { sql } from '../support/sql.js';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';

describe('alerting', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let receiver: HttpReceiver;
  const clock = new MovableClock();

  before(async () => {
    receiver = await startHttpReceiver();
    cp = await startTestControlPlane({ start: { clock, retry: { maxAttempts: 5, baseDelayMs: 50 }, jobIntervalMs: 100 } });
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
    const service = (await cp.api.post('/services', { name: `${label}-svc`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, user.token)).body;
    const hook = `/${label}-${randomUUID()}`;
    const channel = (await cp.api.post('/notification-channels', { name: 'hook', channel_type: 'webhook', config: { url: `${receiver.url}${hook}` } }, user.token)).body;
    return { user, service, channel, hook };
  }
  const rule = async (u: TestUser, fields: Record<string, unknown>) => {
    const r = await cp.api.post('/alert-rules', { name: 'rule', severity: 'critical', ...fields }, u.token);
    expect(r.status, r.text).to.equal(201);
    return r.body;
  };
  const fail = (serviceId: string, fields: Record<string, unknown> = {}) => agent.sendResults([{ serviceId, ok: false, message: 'connection refused', ...fields }]);
  const pass = (serviceId: string) => agent.sendResults([{ serviceId, ok: true, responseTimeMs: 5 }]);
  const alertsOf = async (u: TestUser, query = '') => (await cp.api.get(`/alerts${query}`, u.token)).body as any[];

  describe('alert rules API', () => {
    it('creates, lists by service, reads, updates and deletes a rule', async () => {
      const { user, service } = await setup('rules-crud');
      const created = await rule(user, { service_id: service.id, condition: { statuses: ['RED'], consecutive_failures: 2, custom_flag: 'kept' } });
      expect(created).to.include({ service_id: service.id, organization_id: user.orgId, severity: 'critical', enabled: true });
      expect(created.condition).to.deep.equal({ statuses: ['RED'], consecutive_failures: 2, custom_flag: 'kept' });
      const global = await rule(user, {});
      expect(global.service_id).to.equal(null);
      expect((await cp.api.get(`/alert-rules?service_id=${service.id}`, user.token)).body.map((r: any) => r.id)).to.deep.equal([created.id]);
      expect((await cp.api.get('/alert-rules', user.token)).body).to.have.length(2);
      const updated = await cp.api.put(`/alert-rules/${created.id}`, { severity: 'warning', enabled: false }, user.token);
      expect(updated.body).to.include({ severity: 'warning', enabled: false, name: 'rule' });
      expect((await cp.api.del(`/alert-rules/${created.id}`, user.token)).status).to.equal(204);
      expect((await cp.api.get(`/alert-rules/${created.id}`, user.token)).status).to.equal(404);
    });

    it('refuses bad input with 400 and foreign or unknown references with 404', async () => {
      const { user } = await setup('rules-invalid');
      const other = await setup('rules-other');
      for (const body of [
        { name: 'x', severity: 'fatal' },
        { severity: 'info' },
        { name: 'x', severity: 'info', condition: { consecutive_failures: 'three' } },
        { name: 'x', severity: 'info', condition: { statuses: ['PURPLE'] } },
        { name: 'x', severity: 'info', service_id: 'not-a-uuid' },
        { name: 'x', severity: 'info', condition: 'red' },
      ]) {
        expect((await cp.api.post('/alert-rules', body, user.token)).status, JSON.stringify(body)).to.equal(400);
      }
      expect((await cp.api.post('/alert-rules', { name: 'x', severity: 'info', service_id: other.service.id }, user.token)).status).to.equal(404);
      expect((await cp.api.post('/alert-rules', { name: 'x', severity: 'info', service_id: randomUUID() }, user.token)).status).to.equal(404);
      expect((await cp.api.post('/alert-rules', { name: 'x', severity: 'info', condition: { channel_ids: [other.channel.id] } }, user.token)).status).to.equal(404);
    });
  });

  describe('lifecycle', () => {
    it('opens a firing alert with the contract fields on a RED result and notifies', async () => {
      const { user, service, hook } = await setup('open');
      const r = await rule(user, { service_id: service.id });
      await fail(service.id);
      const [alert] = await alertsOf(user);
      expect(alert).to.include({ service_id: service.id, service_name: 'open-svc', alert_rule_id: r.id, severity: 'critical', status: 'firing', organization_id: user.orgId });
      expect(alert.title).to.equal('open-svc is RED');
      expect(alert.message).to.match(/connection refused/);
      expect(alert).to.include({ acknowledged_at: null, acknowledged_by: null, resolved_at: null, resolved_by: null });
      const request = await receiver.waitFor((q) => q.url === hook && q.json?.event === 'alert_fired', 'the webhook');
      expect(request.json.alert.id).to.equal(alert.id);
    });

    it('opens no second alert while one is open, and a new one after it is resolved', async () => {
      const { user, service } = await setup('dedup');
      await rule(user, { service_id: service.id });
      await fail(service.id);
      await fail(service.id);
      expect(await alertsOf(user)).to.have.length(1);
      const [open] = await alertsOf(user);
      await cp.api.post(`/alerts/${open.id}/resolve`, undefined, user.token);
      await fail(service.id);
      const all = await alertsOf(user, '?status=all');
      expect(all).to.have.length(2);
      expect(all.map((a: any) => a.status).sort()).to.deep.equal(['firing', 'resolved']);
    });

    it('opens exactly one alert for 20 concurrent failing batches of one service', async () => {
      const { user, service } = await setup('concurrent');
      await rule(user, { service_id: service.id });
      const agents = await Promise.all(Array.from({ length: 4 }, () => connectScriptedAgent(cp.running.grpcPort, cp.running.agentToken, 'elsewhere')));
      try {
        await Promise.all(Array.from({ length: 20 }, (_, i) => agents[i % 4]!.sendResults([{ serviceId: service.id, ok: false }])));
      } finally {
        for (const a of agents) a.close();
      }
      expect(await alertsOf(user, '?status=all')).to.have.length(1);
    });

    it('acknowledges with the acting user, repeats as a no-op, and refuses to acknowledge a resolved alert', async () => {
      const { user, service } = await setup('ack');
      await rule(user, { service_id: service.id });
      await fail(service.id);
      const [alert] = await alertsOf(user);
      const ack = await cp.api.post(`/alerts/${alert.id}/acknowledge`, undefined, user.token);
      expect(ack.status).to.equal(200);
      expect(ack.body).to.include({ status: 'acknowledged', acknowledged_by: user.userId });
      const again = await cp.api.post(`/alerts/${alert.id}/acknowledge`, undefined, user.token);
      expect(again.body.acknowledged_at).to.equal(ack.body.acknowledged_at);
      const resolved = await cp.api.post(`/alerts/${alert.id}/resolve`, undefined, user.token);
      expect(resolved.body).to.include({ status: 'resolved', resolved_by: user.userId });
      expect((await cp.api.post(`/alerts/${alert.id}/resolve`, undefined, user.token)).status).to.equal(200);
      expect((await cp.api.post(`/alerts/${alert.id}/acknowledge`, undefined, user.token)).status).to.equal(409);
      expect((await cp.api.post(`/alerts/${randomUUID()}/acknowledge`, undefined, user.token)).status).to.equal(404);
    });

    it('resolves on its own with resolved_by null when the service is GREEN again, and says so to the channel', async () => {
      const { user, service, hook } = await setup('recover');
      await rule(user, { service_id: service.id });
      await fail(service.id);
      const [alert] = await alertsOf(user);
      await pass(service.id);
      const got = (await cp.api.get(`/alerts/${alert.id}`, user.token)).body;
      expect(got).to.include({ status: 'resolved', resolved_by: null });
      expect(await alertsOf(user)).to.deep.equal([]);
      await receiver.waitFor((q) => q.url === hook && q.json?.event === 'alert_resolved' && q.json.alert.id === alert.id, 'the resolve notification');
    });

    it('fires only after consecutive_failures failing results in a row', async () => {
      const { user, service } = await setup('streak');
      await rule(user, { service_id: service.id, condition: { statuses: ['RED'], consecutive_failures: 3 } });
      await fail(service.id);
      await fail(service.id);
      await pass(service.id);
      await fail(service.id);
      await fail(service.id);
      expect(await alertsOf(user)).to.deep.equal([]);
      await fail(service.id);
      expect(await alertsOf(user)).to.have.length(1);
    });

    it('fires on slow results with response_time_ms_above, and a rule without service covers every service', async () => {
      const { user, service } = await setup('latency');
      await rule(user, { condition: { statuses: ['RED'], response_time_ms_above: 200 } });
      await agent.sendResults([{ serviceId: service.id, ok: true, responseTimeMs: 100 }]);
      expect(await alertsOf(user)).to.deep.equal([]);
      await agent.sendResults([{ serviceId: service.id, ok: true, responseTimeMs: 450 }]);
      expect(await alertsOf(user)).to.have.length(1);
      await agent.sendResults([{ serviceId: service.id, ok: true, responseTimeMs: 50 }]);
      expect(await alertsOf(user), 'a fast result resolves it').to.deep.equal([]);
    });

    it('filters the alert list by status and service', async () => {
      const { user, service } = await setup('filters');
      const second = (await cp.api.post('/services', { name: 'second', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, user.token)).body;
      await rule(user, {});
      await fail(service.id);
      await fail(second.id);
      expect(await alertsOf(user, `?service_id=${service.id}`)).to.have.length(1);
      const [one] = await alertsOf(user, `?service_id=${second.id}`);
      await cp.api.post(`/alerts/${one.id}/acknowledge`, undefined, user.token);
      expect(await alertsOf(user, '?status=firing')).to.have.length(1);
      expect(await alertsOf(user, '?status=acknowledged')).to.have.length(1);
      expect((await cp.api.get('/alerts?status=sleeping', user.token)).status).to.equal(400);
    });

    it("answers 404 for another organization's alert", async () => {
      const { user, service } = await setup('alert-iso');
      const stranger = await cp.api.newUser('alert-stranger');
      await rule(user, { service_id: service.id });
      await fail(service.id);
      const [alert] = await alertsOf(user);
      for (const r of [
        await cp.api.get(`/alerts/${alert.id}`, stranger.token),
        await cp.api.post(`/alerts/${alert.id}/acknowledge`, undefined, stranger.token),
        await cp.api.post(`/alerts/${alert.id}/resolve`, undefined, stranger.token),
        await cp.api.get(`/alerts/${alert.id}/deliveries`, stranger.token),
      ]) {
        expect(r.status).to.equal(404);
      }
    });
  });

  describe('maintenance windows', () => {
    it('keep alerts from opening for the services they cover, while statuses still change', async () => {
      const { user, service } = await setup('maintenance');
      await rule(user, { service_id: service.id });
      const now = clock.now().getTime();
      const window = await cp.api.post('/maintenance-windows', { name: 'upgrade', starts_at: new Date(now - 60_000).toISOString(), ends_at: new Date(now + 3_600_000).toISOString(), service_ids: [service.id] }, user.token);
      expect(window.status, window.text).to.equal(201);
      expect(window.body).to.include({ name: 'upgrade', active: true });
      await fail(service.id);
      expect((await cp.api.get(`/services/${service.id}`, user.token)).body.status).to.equal('RED');
      expect(await alertsOf(user)).to.deep.equal([]);
      expect((await cp.api.del(`/maintenance-windows/${window.body.id}`, user.token)).status).to.equal(204);
      await fail(service.id);
      expect(await alertsOf(user)).to.have.length(1);
    });

    it('validate their times and services', async () => {
      const { user } = await setup('maintenance-invalid');
      const t = Date.now();
      const iso = (ms: number) => new Date(t + ms).toISOString();
      expect((await cp.api.post('/maintenance-windows', { name: 'x', starts_at: iso(1000), ends_at: iso(0) }, user.token)).status).to.equal(400);
      expect((await cp.api.post('/maintenance-windows', { name: 'x', starts_at: 'soon', ends_at: iso(0) }, user.token)).status).to.equal(400);
      expect((await cp.api.post('/maintenance-windows', { name: 'x', starts_at: iso(0), ends_at: iso(1000), service_ids: [randomUUID()] }, user.token)).status).to.equal(404);
      const ok = await cp.api.post('/maintenance-windows', { name: 'x', starts_at: iso(0), ends_at: iso(1000) }, user.token);
      expect(ok.body.service_ids).to.deep.equal([]);
      expect((await cp.api.put(`/maintenance-windows/${ok.body.id}`, { name: 'renamed' }, user.token)).body.name).to.equal('renamed');
      expect((await cp.api.get('/maintenance-windows', user.token)).body).to.have.length(1);
    });
  });

  describe('escalation', () => {
    it('notifies each step after its delay while the alert fires, and stops once acknowledged', async () => {
      const { user, service, channel, hook } = await setup('escalate');
      const second = `/esc-2-${randomUUID()}`;
      const secondChannel = (await cp.api.post('/notification-channels', { name: 'second', channel_type: 'webhook', config: { url: `${receiver.url}${second}` } }, user.token)).body;
      const third = `/esc-3-${randomUUID()}`;
      const thirdChannel = (await cp.api.post('/notification-channels', { name: 'third', channel_type: 'webhook', config: { url: `${receiver.url}${third}` } }, user.token)).body;
      const policy = await cp.api.post('/escalation-policies', {
        name: 'on-call',
        steps: [
          { delay_minutes: 0, channel_ids: [channel.id] },
          { delay_minutes: 5, channel_ids: [secondChannel.id] },
          { delay_minutes: 10, channel_ids: [thirdChannel.id] },
        ],
      }, user.token);
      expect(policy.status, policy.text).to.equal(201);
      expect(policy.body.repeat).to.equal(false);
      await rule(user, { service_id: service.id, condition: { escalation_policy_id: policy.body.id } });
      await fail(service.id);
      await receiver.waitFor((q) => q.url === hook, 'step 1 at once');
      expect(await cp.running.runEscalations()).to.equal(0);
      clock.advance(5 * 60_000 + 1_000);
      expect(await cp.running.runEscalations()).to.equal(1);
      await receiver.waitFor((q) => q.url === second, 'step 2 after 5 minutes');
      const [alert] = await alertsOf(user);
      await cp.api.post(`/alerts/${alert.id}/acknowledge`, undefined, user.token);
      clock.advance(10 * 60_000 + 1_000);
      expect(await cp.running.runEscalations(), 'an acknowledged alert escalates no further').to.equal(0);
      expect(receiver.requests.some((q) => q.url === third)).to.equal(false);
    });

    it('validates policies', async () => {
      const { user } = await setup('policy-invalid');
      for (const body of [{ name: 'x', steps: [] }, { name: 'x', steps: [{ delay_minutes: -1, channel_ids: [randomUUID()] }] }, { name: 'x', steps: [{ delay_minutes: 1, channel_ids: [] }] }, { name: 'x', steps: [{ delay_minutes: 1, channel_ids: [randomUUID()] }], repeat: 'often' }]) {
        expect((await cp.api.post('/escalation-policies', body, user.token)).status, JSON.stringify(body)).to.equal(400);
      }
      expect((await cp.api.post('/escalation-policies', { name: 'x', steps: [{ delay_minutes: 1, channel_ids: [randomUUID()] }] }, user.token)).status).to.equal(404);
    });
  });
});
