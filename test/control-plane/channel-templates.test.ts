// Message templates (a channel's config.template, LiquidJS): the engine and its limits, the
// renderer's fallback, validation with the engine's message, the preview, and templates
// rendered into every channel type against real receivers on 127.0.0.1 (HTTP for chat, SMS
// and webhooks, smtp-server for e-mail), and carried by the CLI's apply and export.
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Logger } from '../../control-plane/src/logger.js';
import { createMessageRenderer } from '../../control-plane/src/features/notifications/message-renderer.js';
import { createTemplateEngine, TemplateError } from '../../control-plane/src/features/notifications/template-engine.js';
import { samplePayload, templateVariables } from '../../control-plane/src/features/notifications/template-variables.js';
import type { TestUser } from '../support/api-client.js';
import { runCli } from '../support/cli-process.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { poll } from '../support/poll.js';
import { sql } from '../support/sql.js';
import { startHttpReceiver, type HttpReceiver } from '../fixtures/http-receiver.js';
import { startSmtpSink, type SmtpSink } from '../fixtures/smtp-sink.js';

const PUBLIC_URL = 'https://outpost.example.com';
/** Parses but cannot render: a range of 100 million numbers is over the memory limit. */
const HOSTILE = '{% for i in (1..100000000) %}x{% endfor %}';

describe('channel templates', () => {
  describe('the template engine', () => {
    it('renders variables, reads only own properties, and trims the result', async () => {
      const engine = createTemplateEngine();
      const out = await engine.render('  {{ alert.title | upcase }} [{{ alert.constructor }}{{ alert.__proto__ }}] {{ missing.key }}\n', { alert: { title: 'web is red' } });
      expect(out).to.equal('WEB IS RED []');
    });

    it("answers the engine's message for a template that does not parse, and refuses file tags", () => {
      const engine = createTemplateEngine();
      expect(engine.check('{{ alert.title }}')).to.equal(null);
      expect(engine.check('{{ alert.title ')).to.match(/output "\{\{ alert.title " not closed/);
      expect(engine.check('{{ alert.title | shout }}')).to.match(/undefined filter: shout/);
      expect(engine.check('{% if alert %}open')).to.match(/not closed/);
      for (const tag of ['include', 'render', 'layout']) expect(engine.check(`{% ${tag} '/etc/passwd' %}`)).to.match(new RegExp(`tag "${tag}" is not available in message templates`));
      expect(engine.check('x'.repeat(4001))).to.match(/parse length limit exceeded/);
    });

    it('stops a template at its limits, then does not render it again for a while', async () => {
      let now = 1_000_000;
      const engine = createTemplateEngine(() => now);
      const nested = '{% for i in (1..5000) %}{% for j in (1..5000) %}x{% endfor %}{% endfor %}';
      for (const source of [HOSTILE, nested, '{% assign s = "xxxxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}']) {
        const started = performance.now();
        const failure = await engine.render(source, {}).catch((err: unknown) => err);
        expect(failure, source).to.be.instanceOf(TemplateError);
        expect((failure as Error).message, source).to.match(/limit exceeded/);
        expect(performance.now() - started, source).to.be.below(1_000);
      }
      const again = await engine.render(HOSTILE, {}).catch((err: unknown) => err);
      expect((again as Error).message).to.match(/exceeded a render limit recently/);
      now += 11 * 60_000;
      expect(((await engine.render(HOSTILE, {}).catch((err: unknown) => err)) as Error).message).to.match(/memory alloc limit exceeded/);
    });
  });

  describe('templateVariables', () => {
    const now = new Date('2025-06-01T12:00:00.000Z');
    const variables = (firedSecondsAgo: number, resolvedSecondsAgo?: number) => {
      const payload = samplePayload(resolvedSecondsAgo === undefined ? 'alert_fired' : 'alert_resolved', now);
      payload.alert!.fired_at = new Date(now.getTime() - firedSecondsAgo * 1000).toISOString();
      if (resolvedSecondsAgo !== undefined) payload.alert!.resolved_at = new Date(now.getTime() - resolvedSecondsAgo * 1000).toISOString();
      return templateVariables(payload, { publicUrl: PUBLIC_URL, now, organization: null }) as { alert: { firing_for: string; firing_seconds: number } };
    };

    it('says how long the alert has been firing as reminders do, to its resolution once resolved', () => {
      expect([45, 720, 3900, 93_600].map((s) => variables(s).alert.firing_for)).to.deep.equal(['45 s', '12 min', '1 h 5 min', '1 d 2 h']);
      expect(variables(3600, 600).alert).to.include({ firing_for: '50 min', firing_seconds: 3000 });
    });

    it('gives a test message, which has no alert, the sample alert and every other variable', () => {
      const test = templateVariables(samplePayload('test', now), { publicUrl: PUBLIC_URL, now, organization: { id: 'o', name: 'Acme' } });
      expect(Object.keys(test)).to.deep.equal(['event', 'text', 'alert', 'service', 'location', 'locations', 'links', 'organization']);
      expect(test).to.include({ event: 'test', location: 'eu-west' });
      expect((test.alert as { title: string }).title).to.equal('checkout-api is RED');
    });
  });

  describe('the message renderer', () => {
    const warnings: Record<string, unknown>[] = [];
    const logger = { warn: (fields: Record<string, unknown>) => warnings.push(fields) } as unknown as Logger;
    const now = new Date('2025-06-01T12:00:00.000Z');
    const renderer = createMessageRenderer({ engine: createTemplateEngine(), publicUrl: PUBLIC_URL, clock: { now: () => now }, logger, organizationName: async () => 'Acme' });
    const payload = samplePayload('alert_fired', now);

    it('renders a template with the alert, service, locations, links and organization', async () => {
      const template = '{{ event }} {{ alert.firing_for }} {{ service.name }} {{ locations | join: "+" }} {{ links.service }} {{ links.alerts }} {{ organization.name }} {{ alert.fired_at | date: "%H:%M" }}';
      const rendered = await renderer.forDelivery({ config: { template }, payload, channel: { id: 'c', organizationId: 'o' } });
      expect(rendered).to.deep.equal({
        text: `alert_fired 12 min checkout-api eu-west+us-east ${PUBLIC_URL}/services/${payload.alert!.service_id} ${PUBLIC_URL}/alerts?status=firing Acme 11:48`,
      });
    });

    it('keeps the default words, and logs why, when a template fails at render time', async () => {
      const rendered = await renderer.forDelivery({ config: { template: HOSTILE }, payload, channel: { id: 'channel-1', organizationId: 'o' } });
      expect(rendered).to.equal(undefined);
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.include({ channelId: 'channel-1', event: 'alert_fired' });
      expect(warnings[0]!.reason).to.match(/memory alloc limit exceeded/);
    });

    it('leaves digests, channels without a template and blank renderings to the default words', async () => {
      expect(await renderer.forDelivery({ config: { template: 'x' }, payload, digest: [payload, payload] })).to.equal(undefined);
      expect(await renderer.forDelivery({ config: {}, payload })).to.equal(undefined);
      expect(await renderer.forDelivery({ config: { template: { subject: '{% if false %}x{% endif %}', body: 'B' } }, payload })).to.deep.equal({ subject: undefined, text: 'B' });
    });

    it('renders a test message, which has no alert, with the sample alert', async () => {
      const rendered = await renderer.forDelivery({ config: { template: '{{ event }}: {{ alert.title }} / {{ text }}' }, payload: samplePayload('test', now) });
      expect(rendered!.text).to.equal('test: checkout-api is RED / [TEST] Test notification from Outpost: this channel works.');
    });
  });

  describe('against a control plane', () => {
    let cp: TestControlPlane;
    let agent: ScriptedAgent;
    let receiver: HttpReceiver;
    let smtp: SmtpSink;

    before(async () => {
      receiver = await startHttpReceiver();
      smtp = await startSmtpSink();
      const env = { ...smtp.env, PUBLIC_URL, SMS_GATEWAY_URL: `${receiver.url}/sms`, PAGER_EVENTS_URL: `${receiver.url}/pager` };
      cp = await startTestControlPlane({ env, start: { retry: { maxAttempts: 3, baseDelayMs: 50 }, jobIntervalMs: 100 } });
      agent = await connectReadyAgent(cp.running, 'eu-west');
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
      const service = (await cp.api.post('/services', { name: `${label}-svc`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', locations: ['eu-west'] }, user.token)).body;
      await cp.api.post('/alert-rules', { name: `${label}-rule`, severity: 'critical' }, user.token);
      return { user, service };
    }
    const create = (u: TestUser, channel_type: string, config: Record<string, unknown>) => cp.api.post('/notification-channels', { name: `${channel_type} channel`, channel_type, config }, u.token);
    const channel = async (u: TestUser, channel_type: string, config: Record<string, unknown>) => {
      const r = await create(u, channel_type, config);
      expect(r.status, r.text).to.equal(201);
      return r.body;
    };
    const fail = (serviceId: string) => agent.sendResults([{ serviceId, ok: false, message: 'connection refused' }]);
    const preview = (u: TestUser | string, body: unknown) => cp.api.post('/notification-channels/preview', body, typeof u === 'string' ? u : u.token);
    /** Every variable once, in a line. */
    const EVERYTHING = '{{ event }}|{{ alert.severity | upcase }}|{{ alert.title }}|{{ service.name }}|{{ service.endpoint }}|{{ location }}|{{ links.service }}|{{ alert.firing_for }}|{{ organization.name }}';
    const everything = (event: string, label: string, serviceId: string) =>
      new RegExp(`^${event}\\|CRITICAL\\|${label}-svc is RED\\|${label}-svc\\|http://127\\.0\\.0\\.1:9/\\|eu-west\\|${PUBLIC_URL.replaceAll('.', '\\.')}/services/${serviceId}\\|\\d+ s\\|Test ${label}$`);

    describe('validation', () => {
      it('keeps a template in the config, and a PUT without one removes it', async () => {
        const { user } = await setup('keep');
        const chat = await channel(user, 'chat', { webhook_url: 'https://hooks.example.com/x', template: 'Down: {{ service.name }}' });
        expect(chat.config).to.deep.equal({ webhook_url: 'https://hooks.example.com/x', template: 'Down: {{ service.name }}' });
        const email = await channel(user, 'email', { to: 'ops@example.com', template: { subject: '{{ alert.title }}', body: '{{ alert.message }}' } });
        expect(email.config.template).to.deep.equal({ subject: '{{ alert.title }}', body: '{{ alert.message }}' });
        const put = await cp.api.put(`/notification-channels/${chat.id}`, { config: { webhook_url: 'https://hooks.example.com/x' } }, user.token);
        expect(put.body.config).to.deep.equal({ webhook_url: 'https://hooks.example.com/x' });
        const hook = await channel(user, 'webhook', { url: 'https://hooks.example.com/y', secret: 'hook-secret-1234', template: '{{ alert.title }}' });
        expect(hook.config).to.include({ secret: '****1234', template: '{{ alert.title }}' });
      });

      it("refuses bad templates with 400 and the engine's message, at create and update", async () => {
        const { user } = await setup('refuse');
        const cases: [string, Record<string, unknown>, RegExp][] = [
          ['chat', { webhook_url: 'https://hooks.example.com/x', template: 'Down: {{ service.name ' }, /config\.template: output "\{\{ service\.name " not closed, line:1, col:7/],
          ['sms', { to: '+15555550100', template: '{{ alert.title | shout }}' }, /config\.template: undefined filter: shout/],
          ['webhook', { url: 'https://hooks.example.com/x', template: '{% if alert %}open' }, /config\.template: tag \{% if alert %\} not closed/],
          ['chat', { provider: 'slack', webhook_url: 'https://hooks.example.com/x', template: "{% include 'secrets' %}" }, /config\.template: tag "include" is not available in message templates/],
          ['email', { to: 'ops@example.com', template: { subject: '{{ alert.title | nope }}' } }, /config\.template\.subject: undefined filter: nope/],
          ['email', { to: 'ops@example.com', template: { subject: 'x', colour: 'red' } }, /colour not a key of an e-mail template/],
          ['email', { to: 'ops@example.com', template: {} }, /needs a subject, a body or both/],
          ['chat', { webhook_url: 'https://hooks.example.com/x', template: { body: 'x' } }, /config\.template: template must be a string/],
          ['chat', { webhook_url: 'https://hooks.example.com/x', template: 7 }, /template must be a string/],
          ['chat', { webhook_url: 'https://hooks.example.com/x', template: '  ' }, /template must not be empty/],
          ['chat', { webhook_url: 'https://hooks.example.com/x', template: 'x'.repeat(4001) }, /at most 4000 characters/],
          ['pager', { integration_key: 'routing-key', template: '{{ alert.title }}' }, /a pager channel takes no template/],
        ];
        for (const [type, config, message] of cases) {
          const r = await create(user, type, config);
          expect(r.status, `${type} ${JSON.stringify(config)}`).to.equal(400);
          expect(r.body.code).to.equal('VALIDATION_FAILED');
          expect(r.body.error, `${type} ${JSON.stringify(config)}`).to.match(message);
          expect(r.body.details[0].path).to.match(/^config\.template/);
        }
        const c = await channel(user, 'chat', { webhook_url: 'https://hooks.example.com/x' });
        const put = await cp.api.put(`/notification-channels/${c.id}`, { config: { webhook_url: 'https://hooks.example.com/x', template: '{{ alert.title | shout }}' } }, user.token);
        expect(put.status).to.equal(400);
        expect(put.body.error).to.match(/undefined filter: shout/);
        expect((await cp.api.get(`/notification-channels/${c.id}`, user.token)).body.config).to.deep.equal({ webhook_url: 'https://hooks.example.com/x' });
      });
    });

    describe('POST /notification-channels/preview', () => {
      it('answers what each channel type would carry, rendered with a sample alert', async () => {
        const { user } = await setup('preview');
        const chat = await preview(user, { channel_type: 'chat', template: '{{ alert.title }} for {{ alert.firing_for }} in {{ locations | join: ", " }} ({{ organization.name }})' });
        expect(chat.status, chat.text).to.equal(200);
        expect(chat.body).to.include({ channel_type: 'chat', event: 'alert_fired', text: 'checkout-api is RED for 12 min in eu-west, us-east (Test preview)', subject: null, body: null });
        expect(chat.body.variables.alert).to.include({ title: 'checkout-api is RED', severity: 'critical', status: 'firing', kind: 'service', firing_seconds: 720 });
        const sample = chat.body.variables.alert.service_id;
        expect(chat.body.variables.links).to.deep.equal({
          dashboard: PUBLIC_URL, alert: `${PUBLIC_URL}/services/${sample}`, alerts: `${PUBLIC_URL}/alerts?status=firing`, service: `${PUBLIC_URL}/services/${sample}`, location: null,
        });

        const sms = await preview(user, { channel_type: 'sms', template: `{{ alert.title }} ${'x'.repeat(200)}` });
        expect(sms.body.text).to.have.length(160).and.match(/^checkout-api is RED x+…$/);

        const email = await preview(user, { channel_type: 'email', event: 'alert_resolved', template: { subject: '[{{ event }}] {{ service.name }}\nBcc: x', body: '{{ alert.message }}\nOpen {{ links.service }}' } });
        expect(email.body).to.include({ event: 'alert_resolved', text: null, subject: '[alert_resolved] checkout-api Bcc: x' });
        expect(email.body.body).to.match(/^HTTP 503 .*\nOpen https:\/\/outpost\.example\.com\/services\/[0-9a-f-]{36}$/);
        const emailBodyOnly = await preview(user, { channel_type: 'email', template: 'Body only' });
        expect(emailBodyOnly.body).to.include({ subject: '[Outpost] [FIRING] [CRITICAL] checkout-api is RED: HTTP 503 Service Unavailable from https://checkout.example.com/health', body: 'Body only' });

        const webhook = await preview(user, { channel_type: 'webhook', event: 'alert_acknowledged', template: '{{ event }} {{ alert.status }}' });
        expect(webhook.body.text).to.equal('alert_acknowledged acknowledged');
        const byDefault = await preview(user, { channel_type: 'chat' });
        expect(byDefault.body.text).to.equal('[FIRING] [CRITICAL] checkout-api is RED: HTTP 503 Service Unavailable from https://checkout.example.com/health');
      });

      it('lets a viewer preview, and refuses bad templates, failing renders and unknown types with 400', async () => {
        const { user } = await setup('preview-bad');
        const viewer = await cp.api.keyWithRole(user, 'viewer');
        expect((await preview(viewer, { channel_type: 'sms', template: '{{ event }}' })).body.text).to.equal('alert_fired');
        const cases: [unknown, RegExp][] = [
          [{ channel_type: 'chat', template: '{{ alert.title | shout }}' }, /template: undefined filter: shout, line:1/],
          [{ channel_type: 'chat', template: '{{ alert.title' }, /not closed/],
          [{ channel_type: 'chat', template: 'preview-bad {% for i in (1..100000000) %}x{% endfor %}' }, /the template failed to render: memory alloc limit exceeded/],
          [{ channel_type: 'chat', template: { subject: 'x' } }, /template must be a string/],
          [{ channel_type: 'pager', template: 'x' }, /pager channels take no template/],
          [{ channel_type: 'chat', event: 'alert_exploded' }, /event must be one of alert_fired/],
          [{ channel_type: 'chat', template: 'x', colour: 'red' }, /unknown field colour/],
        ];
        for (const [body, message] of cases) {
          const r = await preview(user, body);
          expect(r.status, JSON.stringify(body)).to.equal(400);
          expect(r.body.error, JSON.stringify(body)).to.match(message);
        }
        expect((await cp.api.post('/notification-channels/preview', { channel_type: 'chat' })).status).to.equal(401);
      });
    });

    describe('delivery by channel type', () => {
      it('posts the rendered template as a chat {"text"}, for each event of the alert', async () => {
        const { user, service } = await setup('chat');
        const path = `/chat-${randomUUID()}`;
        await channel(user, 'chat', { webhook_url: `${receiver.url}${path}`, template: EVERYTHING });
        await fail(service.id);
        const fired = await receiver.waitFor((q) => q.url === path, 'the chat message');
        expect(Object.keys(fired.json)).to.deep.equal(['text']);
        expect(fired.json.text).to.match(everything('alert_fired', 'chat', service.id));
        const [alert] = (await cp.api.get('/alerts', user.token)).body;
        await cp.api.post(`/alerts/${alert.id}/resolve`, undefined, user.token);
        const resolved = await receiver.waitFor((q) => q.url === path && q.json.text.startsWith('alert_resolved'), 'the resolution');
        expect(resolved.json.text).to.match(everything('alert_resolved', 'chat', service.id));
      });

      for (const provider of ['slack', 'discord', 'telegram'] as const) {
        it(`puts the rendered template in a ${provider} message under its heading`, async () => {
          const { user, service } = await setup(provider);
          const base = `/${provider}-${randomUUID()}`;
          const config =
            provider === 'telegram'
              ? { provider, bot_token: '123456:TEST-token', chat_id: '-100123', api_url: `${receiver.url}${base}` }
              : { provider, webhook_url: `${receiver.url}${base}` };
          await channel(user, 'chat', { ...config, template: 'Look at {{ service.name }} from {{ location }} <now>' });
          await fail(service.id);
          const request = await receiver.waitFor((q) => q.url.startsWith(base), `the ${provider} message`);
          const want = `Look at ${provider}-svc from eu-west`;
          if (provider === 'slack') {
            expect(request.json.text).to.equal(`[FIRING] [CRITICAL] ${provider}-svc is RED`);
            expect(request.json.attachments[0].blocks[1].text.text).to.equal(`${want} &lt;now&gt;`);
          } else if (provider === 'discord') {
            expect(request.json.embeds[0].title).to.equal(`[FIRING] [CRITICAL] ${provider}-svc is RED`);
            expect(request.json.embeds[0].description).to.match(new RegExp(`^${want} <now>\\n\\n\\[Open in Outpost\\]`));
          } else {
            expect(request.json.text).to.include(`<b>[FIRING] [CRITICAL] ${provider}-svc is RED</b>\n${want} &lt;now&gt;\n`);
          }
        });
      }

      it('e-mails the rendered subject and body through SMTP', async () => {
        const { user, service } = await setup('email');
        const to = `oncall-${randomUUID()}@example.com`;
        await channel(user, 'email', { to, template: { subject: '{{ service.name }} down ({{ alert.severity }})', body: `Dear on-call,\n\n${EVERYTHING}\n\nThanks` } });
        await fail(service.id);
        const mail = await poll(() => smtp.mails.find((m) => m.to.includes(to)), { what: 'the e-mail' });
        expect(mail.raw).to.match(/^Subject: email-svc down \(critical\)\r?$/m);
        const body = mail.text.slice(mail.text.search(/\r?\n\r?\n/)).replace(/\r\n/g, '\n').trim();
        const lines = body.split('\n');
        expect(lines[0]).to.equal('Dear on-call,');
        expect(lines[2]).to.match(everything('alert_fired', 'email', service.id));
        expect(lines.slice(3)).to.deep.equal(['', 'Thanks']);
        expect(mail.text, 'no JSON dump under a template body').to.not.include('"organization_id"');
      });

      it('sends the rendered template as the SMS text, cut to one segment', async () => {
        const { user, service } = await setup('sms');
        const to = `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
        await channel(user, 'sms', { to, template: `{{ service.name }} {{ alert.status }} since {{ alert.fired_at | date: "%H:%M" }} UTC ${'.'.repeat(200)}` });
        await fail(service.id);
        const request = await receiver.waitFor((q) => q.url === '/sms' && new URLSearchParams(q.body).get('To') === to, 'the SMS');
        const text = new URLSearchParams(request.body).get('Body')!;
        expect(text).to.have.length(160);
        expect(text).to.match(/^sms-svc firing since \d\d:\d\d UTC \.+…$/);
      });

      it('keeps the webhook body as it was, the template rendering only its "text", signed as before', async () => {
        const { user, service } = await setup('webhook');
        const plain = `/plain-${randomUUID()}`;
        const templated = `/templated-${randomUUID()}`;
        await channel(user, 'webhook', { url: `${receiver.url}${plain}` });
        await channel(user, 'webhook', { url: `${receiver.url}${templated}`, secret: 'shared-secret', template: '{{ service.name }} is down ({{ event }})' });
        await fail(service.id);
        const before = await receiver.waitFor((q) => q.url === plain, 'the plain webhook');
        const after = await receiver.waitFor((q) => q.url === templated, 'the templated webhook');
        expect(Object.keys(after.json)).to.deep.equal(Object.keys(before.json));
        expect(Object.keys(after.json)).to.deep.equal(['event', 'alert', 'service', 'text', 'sent_at']);
        expect(after.json.alert).to.deep.equal(before.json.alert);
        expect(after.json.service).to.deep.equal(before.json.service);
        expect(before.json.text).to.match(/^\[FIRING\] \[CRITICAL\] webhook-svc is RED: .*connection refused/);
        expect(after.json.text).to.equal('webhook-svc is down (alert_fired)');
        expect(after.headers['x-signature-256']).to.equal(`sha256=${createHmac('sha256', 'shared-secret').update(after.body).digest('hex')}`);
      });

      it('sends the default message when the template fails at render time', async () => {
        const { user, service } = await setup('fallback');
        const path = `/fallback-${randomUUID()}`;
        const plain = `/plain-${randomUUID()}`;
        await channel(user, 'chat', { webhook_url: `${receiver.url}${path}`, template: `fallback ${HOSTILE}` });
        await channel(user, 'chat', { webhook_url: `${receiver.url}${plain}` });
        await fail(service.id);
        const request = await receiver.waitFor((q) => q.url === path, 'the chat message');
        const byDefault = await receiver.waitFor((q) => q.url === plain, 'the message of a channel without a template');
        expect(request.json.text).to.match(/^\[FIRING\] \[CRITICAL\] fallback-svc is RED: .*connection refused/);
        expect(request.json.text).to.equal(byDefault.json.text);
        const [alert] = (await cp.api.get('/alerts', user.token)).body;
        const deliveries = await poll(async () => {
          const list = (await cp.api.get(`/alerts/${alert.id}/deliveries`, user.token)).body;
          return list.length === 2 && list.every((d: { status: string }) => d.status === 'delivered') && list;
        }, { what: 'both deliveries recorded as delivered' });
        expect(deliveries.map((d: { attempts: number }) => d.attempts)).to.deep.equal([1, 1]);
      });

      it('renders the template for Send test, with the sample alert', async () => {
        const { user } = await setup('test-message');
        const path = `/test-${randomUUID()}`;
        const c = await channel(user, 'chat', { webhook_url: `${receiver.url}${path}`, template: '{{ event }}: {{ alert.title }} ({{ organization.name }})' });
        expect((await cp.api.post(`/notification-channels/${c.id}/test`, undefined, user.token)).status).to.equal(202);
        const request = await receiver.waitFor((q) => q.url === path, 'the test message');
        expect(request.json.text).to.equal('test: checkout-api is RED (Test test-message)');
      });
    });

    describe('outpost apply and export', () => {
      it('apply sets templates from the file, export writes them back, and applying the export changes nothing', async () => {
        const { user } = await setup('cli');
        const dir = mkdtempSync(path.join(os.tmpdir(), 'outpost-templates-'));
        try {
          const env = { OUTPOST_URL: cp.baseUrl, OUTPOST_API_KEY: await cp.api.keyWithRole(user, 'admin') };
          const file = path.join(dir, 'outpost.yaml');
          writeFileSync(
            file,
            [
              'notification_channels:',
              '  - name: ops room',
              '    type: chat',
              '    config:',
              '      provider: slack',
              '      webhook_url: https://hooks.example.com/ops',
              '      template: |',
              '        {{ alert.title }} for {{ alert.firing_for }}',
              '        {{ links.service }}',
              '  - name: on-call mail',
              '    type: email',
              '    config:',
              '      to: oncall@example.com',
              '      template:',
              '        subject: "{{ service.name }} is down"',
              '        body: "{{ alert.message }}"',
              '',
            ].join('\n'),
          );
          const applied = await runCli(['apply', '-f', file], env);
          expect(applied.code, applied.stderr).to.equal(0);
          const channels = (await cp.api.get('/notification-channels', user.token)).body as { name: string; config: Record<string, unknown> }[];
          expect(channels.find((c) => c.name === 'ops room')!.config.template).to.equal('{{ alert.title }} for {{ alert.firing_for }}\n{{ links.service }}\n');
          expect(channels.find((c) => c.name === 'on-call mail')!.config.template).to.deep.equal({ subject: '{{ service.name }} is down', body: '{{ alert.message }}' });

          const exported = await runCli(['export'], env);
          expect(exported.code, exported.stderr).to.equal(0);
          expect(exported.stdout).to.contain('{{ alert.title }} for {{ alert.firing_for }}').and.to.contain('subject: "{{ service.name }} is down"');
          const round = await runCli(['apply', '-f', '-'], env, exported.stdout);
          expect(round.code, round.stderr).to.equal(0);
          expect(round.stdout.trim()).to.equal('No changes: the organization matches the file.');

          writeFileSync(file, ['notification_channels:', '  - name: ops room', '    type: chat', '    config:', '      webhook_url: https://hooks.example.com/ops', '      template: "{{ alert.title | shout }}"', ''].join('\n'));
          const refused = await runCli(['apply', '-f', file], env);
          expect(refused.code).to.not.equal(0);
          expect(refused.stderr).to.match(/undefined filter: shout/);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    });
  });
});
