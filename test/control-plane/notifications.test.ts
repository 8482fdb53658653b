// Notification channels and guaranteed delivery, against real receivers on 127.0.0.1: an
// HTTP receiver for chat, webhook, pager and SMS, and smtp-server for e-mail.
import { createHmac, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, connectScriptedAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';
import { startSmtpSink, type SmtpSink } from '../fixtures/smtp-sink.js';
import { freePort, tcpListener } from '../fixtures/peers/net-fixtures.js';

describe('notifications', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let receiver: HttpReceiver;
  let smtp: SmtpSink;
  const fast = { retry: { maxAttempts: 6, baseDelayMs: 50 }, jobIntervalMs: 100 };
  let env: Record<string, string>;

  before(async () => {
    receiver = await startHttpReceiver();
    smtp = await startSmtpSink();
    env = {
      ...smtp.env,
      PAGER_EVENTS_URL: `${receiver.url}/pager`,
      SMS_GATEWAY_URL: `${receiver.url}/sms`,
      SMS_GATEWAY_USER: 'gateway-user',
      SMS_GATEWAY_PASSWORD: 'gateway-pass',
      SMS_FROM: '+15555550199',
    };
    cp = await startTestControlPlane({ env, start: fast });
    agent = await connectReadyAgent(cp.running);
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
    await receiver?.close();
    await smtp?.close();
  });

  async function setup(label: string) {
    const user = await cp.api.newUser(label);
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
    const service = (await cp.api.post('/services', { name: `${label}-svc`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, user.token)).body;
    await cp.api.post('/alert-rules', { name: `${label}-rule`, severity: 'critical' }, user.token);
    return { user, service };
  }
  const channel = async (u: TestUser, channel_type: string, config: Record<string, unknown>) => {
    const r = await cp.api.post('/notification-channels', { name: `${channel_type}-channel`, channel_type, config }, u.token);
    expect(r.status, r.text).to.equal(201);
    return r.body;
  };
  const fail = (serviceId: string) => agent.sendResults([{ serviceId, ok: false, message: 'connection refused' }]);

  describe('channels API', () => {
    it('masks secrets except their last 4 characters, and keeps them when the mask is sent back', async () => {
      const { user } = await setup('mask');
      const pager = await channel(user, 'pager', { integration_key: 'R0UTINGKEY0123456789abcd' });
      expect(pager.config.integration_key).to.equal('****abcd');
      const hook = await channel(user, 'webhook', { url: `${receiver.url}/x`, secret: 'very-secret-value' });
      expect(hook.config.secret).to.equal('****alue');
      const [row] = await sql<{ config: { integration_key: string } }>('select config from notification_channels where id = $1', [pager.id]);
      expect(row!.config.integration_key).to.not.include('R0UTINGKEY');
      const put = await cp.api.put(`/notification-channels/${pager.id}`, { name: 'renamed', config: { integration_key: '****abcd' } }, user.token);
      expect(put.body).to.include({ name: 'renamed' });
      expect(put.body.config.integration_key).to.equal('****abcd');
      expect((await cp.api.get('/notification-channels', user.token)).body).to.have.length(2);
      const deleted = await cp.api.del(`/notification-channels/${pager.id}`, user.token);
      expect(deleted.body).to.deep.equal({ message: 'notification channel deleted', id: pager.id });
    });

    it('refuses invalid configs with 400', async () => {
      const { user } = await setup('configs');
      for (const [type, config] of [
        ['chat', {}],
        ['chat', { webhook_url: 'ftp://x' }],
        ['sms', { to: '555-0100' }],
        ['email', { to: 'nobody' }],
        ['pager', { integration_key: '' }],
        ['webhook', { url: 'http://127.0.0.1/', method: 'GET' }],
        ['webhook', { url: 'http://127.0.0.1/', colour: 'red' }],
        ['webhook', { url: 'http://127.0.0.1/', headers: { 'x-team': 'sre\r\nx-injected: 1' } }],
        ['webhook', { url: 'http://127.0.0.1/', headers: { 'x team': 'sre' } }],
        ['fax', { to: '+15555550100' }],
      ] as const) {
        expect((await cp.api.post('/notification-channels', { name: 'x', channel_type: type, config }, user.token)).status, `${type} ${JSON.stringify(config)}`).to.equal(400);
      }
    });
  });

  describe('delivery by channel type', () => {
    it('posts {"text"} to a chat webhook', async () => {
      const { user, service } = await setup('chat');
      const path = `/chat-${randomUUID()}`;
      await channel(user, 'chat', { webhook_url: `${receiver.url}${path}` });
      await fail(service.id);
      const request = await receiver.waitFor((q) => q.url === path, 'the chat message');
      expect(Object.keys(request.json)).to.deep.equal(['text']);
      expect(request.json.text).to.match(/FIRING.*chat-svc is RED/);
    });

    it('posts the event to a webhook with headers and a verifiable signature', async () => {
      const { user, service } = await setup('webhook');
      const path = `/hook-${randomUUID()}`;
      await channel(user, 'webhook', { url: `${receiver.url}${path}`, method: 'PUT', headers: { 'x-team': 'sre' }, secret: 'shared-secret' });
      await fail(service.id);
      const request = await receiver.waitFor((q) => q.url === path, 'the webhook');
      expect(request.method).to.equal('PUT');
      expect(request.headers['x-team']).to.equal('sre');
      const expected = `sha256=${createHmac('sha256', 'shared-secret').update(request.body).digest('hex')}`;
      expect(request.headers['x-signature-256']).to.equal(expected);
      expect(request.json).to.include({ event: 'alert_fired' });
      expect(request.json.alert).to.include({ service_id: service.id, status: 'firing' });
      expect(request.json.service).to.include({ id: service.id, name: 'webhook-svc' });
    });

    it('sends pager events-v2: trigger, then acknowledge and resolve with the alert id as dedup key', async () => {
      const { user, service } = await setup('pager');
      await channel(user, 'pager', { integration_key: 'routing-key-123' });
      await fail(service.id);
      const [alert] = (await cp.api.get('/alerts', user.token)).body;
      const trigger = await receiver.waitFor((q) => q.url === '/pager' && q.json?.dedup_key === alert.id, 'the trigger');
      expect(trigger.json).to.include({ routing_key: 'routing-key-123', event_action: 'trigger' });
      expect(trigger.json.payload).to.include({ severity: 'critical' });
      await cp.api.post(`/alerts/${alert.id}/acknowledge`, undefined, user.token);
      await receiver.waitFor((q) => q.url === '/pager' && q.json?.dedup_key === alert.id && q.json.event_action === 'acknowledge', 'the acknowledge');
      await cp.api.post(`/alerts/${alert.id}/resolve`, undefined, user.token);
      await receiver.waitFor((q) => q.url === '/pager' && q.json?.dedup_key === alert.id && q.json.event_action === 'resolve', 'the resolve');
    });

    it('sends one SMS segment through the gateway form with basic auth', async () => {
      const { user, service } = await setup('sms');
      const to = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
      await channel(user, 'sms', { to });
      await fail(service.id);
      const request = await receiver.waitFor((q) => q.url === '/sms' && new URLSearchParams(q.body).get('To') === to, 'the SMS');
      const form = new URLSearchParams(request.body);
      expect(form.get('From')).to.equal('+15555550199');
      expect(form.get('Body')!.length).to.be.at.most(160);
      expect(form.get('Body')).to.match(/sms-svc is RED/);
      expect(request.headers.authorization).to.equal(`Basic ${Buffer.from('gateway-user:gateway-pass').toString('base64')}`);
    });

    it('e-mails the alert through SMTP', async () => {
      const { user, service } = await setup('email');
      const to = `oncall-${randomUUID()}@example.com`;
      await channel(user, 'email', { to });
      await fail(service.id);
      const mail = await poll(() => smtp.mails.find((m) => m.to.includes(to)), { what: 'the e-mail' });
      expect(mail.raw).to.match(/^Subject: /m);
      expect(mail.text).to.include('[FIRING] [CRITICAL] email-svc is RED');
      expect(mail.text).to.include(service.id);
    });

    it('queues a test message with POST /{id}/test', async () => {
      const { user } = await setup('test-message');
      const path = `/test-${randomUUID()}`;
      const c = await channel(user, 'chat', { webhook_url: `${receiver.url}${path}` });
      const r = await cp.api.post(`/notification-channels/${c.id}/test`, undefined, user.token);
      expect(r.status).to.equal(202);
      const request = await receiver.waitFor((q) => q.url === path, 'the test message');
      expect(request.json.text).to.match(/Test notification/);
    });
  });

  describe('guaranteed delivery', () => {
    it('retries a receiver that fails the first 3 attempts, recording every attempt', async () => {
      const { user, service } = await setup('retry');
      const path = `/flaky-${randomUUID()}`;
      await channel(user, 'webhook', { url: `${receiver.url}${path}` });
      receiver.failNext(3);
      await fail(service.id);
      await receiver.waitFor((q) => q.url === path && q.status === 200, 'the 4th attempt');
      expect(receiver.requests.filter((q) => q.url === path).map((q) => q.status)).to.deep.equal([500, 500, 500, 200]);
      const [alert] = (await cp.api.get('/alerts', user.token)).body;
      const deliveries = await poll(async () => {
        const list = (await cp.api.get(`/alerts/${alert.id}/deliveries`, user.token)).body;
        return list[0]?.status === 'delivered' && list;
      }, { what: 'the delivery recorded as delivered' });
      expect(deliveries[0]).to.include({ attempts: 4, event: 'alert_fired' });
      expect(deliveries[0].history.map((h: any) => h.status_code)).to.deep.equal([500, 500, 500, 200]);
    });

    it('wakes for a retry when it falls due, with no short poll to find it', async () => {
      // The production dispatcher, whose longest sleep (a minute) is past this test's timeout.
      const patient = await startTestControlPlane({ env, start: { retry: { maxAttempts: 3, baseDelayMs: 500 } } });
      const scripted = await connectReadyAgent(patient.running);
      try {
        const user = await patient.api.newUser('due-retry');
        const service = (await patient.api.post('/services', { name: 'due-retry-svc', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, user.token)).body;
        await patient.api.post('/alert-rules', { name: 'r', severity: 'critical' }, user.token);
        const path = `/due-retry-${randomUUID()}`;
        const created = await patient.api.post('/notification-channels', { name: 'hook', channel_type: 'webhook', config: { url: `${receiver.url}${path}` } }, user.token);
        expect(created.status, created.text).to.equal(201);
        receiver.failNext(1);
        await scripted.sendResults([{ serviceId: service.id, ok: false, message: 'connection refused' }]);
        await receiver.waitFor((q) => q.url === path && q.status === 200, 'the retry, at its due time', 10_000);
        expect(receiver.requests.filter((q) => q.url === path).map((q) => q.status)).to.deep.equal([500, 200]);
      } finally {
        scripted.close();
        await patient.stop();
      }
    });

    it('keeps delivering to healthy channels while another endpoint hangs', async () => {
      const { user, service } = await setup('hanging');
      const silent = await tcpListener();
      try {
        await channel(user, 'webhook', { url: `http://${silent.endpoint}/never` });
        const path = `/healthy-${randomUUID()}`;
        await channel(user, 'chat', { webhook_url: `${receiver.url}${path}` });
        const started = Date.now();
        await fail(service.id);
        await receiver.waitFor((q) => q.url === path, 'the healthy channel', 5_000);
        expect(Date.now() - started, 'well before the hanging request times out (10 s)').to.be.below(5_000);
      } finally {
        await silent.close();
      }
    });

    it('records e-mail deliveries as failed, naming the missing settings, when SMTP is not configured', async () => {
      const plain = await startTestControlPlane({ start: fast });
      try {
        const user = await plain.api.newUser('no-smtp');
        const created = await plain.api.post('/notification-channels', { name: 'mail', channel_type: 'email', config: { to: 'a@example.com' } }, user.token);
        expect(created.status).to.equal(201);
        const test = await plain.api.post(`/notification-channels/${created.body.id}/test`, undefined, user.token);
        expect(test.status).to.equal(400);
        expect(test.body.error).to.match(/SMTP_HOST/);
      } finally {
        await plain.stop();
      }
    });

    it('delivers after a restart what was still pending when the control plane stopped', async () => {
      const port = await freePort();
      const first = await startTestControlPlane({ start: { retry: { maxAttempts: 6, baseDelayMs: 1_500 }, jobIntervalMs: 100 } });
      const user = await first.api.newUser('restart');
      const service = (await first.api.post('/services', { name: 'restart-svc', endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, user.token)).body;
      await first.api.post('/alert-rules', { name: 'r', severity: 'warning' }, user.token);
      // Nothing listens on the receiver's port yet: the first attempt fails and a retry is scheduled.
      await first.api.post('/notification-channels', { name: 'later', channel_type: 'webhook', config: { url: `http://127.0.0.1:${port}/late` } }, user.token);
      const early = await connectScriptedAgent(first.running.grpcPort, first.running.agentToken);
      await early.sendResults([{ serviceId: service.id, ok: false }]);
      const [alert] = (await first.api.get('/alerts', user.token)).body;
      await poll(async () => (await first.api.get(`/alerts/${alert.id}/deliveries`, user.token)).body[0]?.attempts === 1, { what: 'the failed first attempt' });
      early.close();
      await first.stop();

      const late = await startHttpReceiver();
      const relay = await import('node:http');
      const proxy = relay.createServer((req, res) => req.pipe(relay.request(`${late.url}${req.url}`, { method: req.method, headers: req.headers }, (up) => { res.writeHead(up.statusCode ?? 502, up.headers); up.pipe(res); })));
      await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', r));
      const second = await startTestControlPlane({ start: fast });
      try {
        const request = await late.waitFor((q) => q.url === '/late', 'the delivery after the restart');
        expect(request.json.alert.id).to.equal(alert.id);
      } finally {
        await second.stop();
        proxy.closeAllConnections();
        await new Promise((r) => proxy.close(r));
        await late.close();
      }
    });
  });

  describe('storm control', () => {
    it('sends chat one digest when more than 10 alerts open within 30 s, while webhooks get every alert', async () => {
      const user = await cp.api.newUser('storm');
      await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
      await cp.api.post('/alert-rules', { name: 'all', severity: 'critical' }, user.token);
      const chatPath = `/storm-chat-${randomUUID()}`;
      const hookPath = `/storm-hook-${randomUUID()}`;
      await channel(user, 'chat', { webhook_url: `${receiver.url}${chatPath}` });
      await channel(user, 'webhook', { url: `${receiver.url}${hookPath}` });
      const services = [];
      for (let i = 0; i < 15; i++) services.push((await cp.api.post('/services', { name: `storm-${i}`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP' }, user.token)).body);
      for (const s of services) await fail(s.id);
      await poll(() => receiver.requests.filter((q) => q.url === hookPath).length === 15, { what: '15 webhook events' });
      const digest = await receiver.waitFor((q) => q.url === chatPath && /alerts opened in a short time/.test(q.json?.text ?? ''), 'the chat digest');
      const chats = receiver.requests.filter((q) => q.url === chatPath);
      expect(chats.length, 'at most the first 10 alerts one by one, then one digest').to.be.at.most(11);
      expect(digest.json.text).to.match(/storm-14 is RED/);
    });
  });
});
