// Native chat providers and Opsgenie, each against a local HTTP receiver that checks the
// request the provider's API expects: path, auth, and the shape of the body.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { TestUser } from '../support/api-client.js';
import { startTestControlPlane, type TestControlPlane } from '../support/control-plane-harness.js';
import { connectReadyAgent, type ScriptedAgent } from '../support/grpc-test-agent.js';
import { sql } from '../support/sql.js';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '../fixtures/http-receiver.js';

const PUBLIC_URL = 'https://outpost.example.com';

describe('chat providers and Opsgenie', () => {
  let cp: TestControlPlane;
  let agent: ScriptedAgent;
  let receiver: HttpReceiver;

  before(async () => {
    receiver = await startHttpReceiver();
    cp = await startTestControlPlane({ env: { PUBLIC_URL, PAGER_EVENTS_URL: `${receiver.url}/pagerduty` }, start: { retry: { maxAttempts: 3, baseDelayMs: 50 }, jobIntervalMs: 100 } });
    agent = await connectReadyAgent(cp.running, 'eu-west');
  });
  after(async () => {
    agent?.close();
    await cp?.stop();
    await receiver?.close();
  });

  async function setup(label: string) {
    const user = await cp.api.newUser(label);
    await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
    const service = (await cp.api.post('/services', { name: `${label}-svc`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', locations: ['eu-west'] }, user.token)).body;
    await cp.api.post('/alert-rules', { name: `${label}-rule`, severity: 'critical' }, user.token);
    return { user, service };
  }
  const create = (u: TestUser, channel_type: string, config: Record<string, unknown>) =>
    cp.api.post('/notification-channels', { name: `${String(config.provider ?? channel_type)} channel`, channel_type, config }, u.token);
  const channel = async (u: TestUser, channel_type: string, config: Record<string, unknown>) => {
    const r = await create(u, channel_type, config);
    expect(r.status, r.text).to.equal(201);
    return r.body;
  };
  const fail = (serviceId: string) => agent.sendResults([{ serviceId, ok: false, message: 'connection refused' }]);
  /** Fires an alert on a fresh service whose only channel is this one; answers the request it posts. */
  async function delivered(label: string, channelType: string, config: (base: string) => Record<string, unknown>, path: (base: string) => string) {
    const { user, service } = await setup(label);
    const base = `/${label}-${randomUUID()}`;
    await channel(user, channelType, config(base));
    await fail(service.id);
    const request = await receiver.waitFor((q) => q.url === path(base), `the ${label} message`);
    return { request, service, user };
  }
  const link = (serviceId: string) => `${PUBLIC_URL}/services/${serviceId}`;

  describe('config validation', () => {
    it('names the provider and its missing keys with 400', async () => {
      const { user } = await setup('missing');
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['chat', { provider: 'telegram' }, /telegram needs bot_token and chat_id/],
        ['chat', { provider: 'telegram', bot_token: '123:abc' }, /config\.chat_id: telegram needs bot_token and chat_id/],
        ['chat', { provider: 'ntfy', server_url: 'https://ntfy.sh' }, /ntfy needs server_url and topic/],
        ['chat', { provider: 'gotify', server_url: 'https://push.example.com' }, /gotify needs server_url and token/],
        ['chat', { provider: 'pushover', token: 'app-token' }, /pushover needs token and user/],
        ['chat', { provider: 'slack' }, /slack needs webhook_url/],
        ['chat', { provider: 'discord', webhook_url: 'not a url' }, /webhook_url must be an http\(s\) URL/],
        ['chat', { provider: 'slack', webhook_url: 'https://hooks.example.com/x', bot_token: '1:a' }, /bot_token not a config key of a slack chat channel/],
        ['chat', { provider: 'whatsapp', webhook_url: 'https://hooks.example.com/x' }, /config\.provider: provider must be one of slack, discord/],
        ['chat', { provider: 'toString', webhook_url: 'https://hooks.example.com/x' }, /provider must be one of/],
        ['chat', { provider: 7 }, /provider must be one of/],
        ['pager', { provider: 'opsgenie' }, /opsgenie needs api_key/],
        ['pager', { provider: 'opsgenie', api_key: 'k', region: 'mars' }, /region must be us or eu/],
        ['pager', { provider: 'opsgenie', integration_key: 'k' }, /opsgenie needs api_key/],
        ['pager', { provider: 'victorops', integration_key: 'k' }, /provider must be one of pagerduty, opsgenie/],
        ['webhook', { provider: 'slack', url: 'https://hooks.example.com/x' }, /provider not a config key of a webhook channel/],
      ];
      for (const [type, config, message] of cases) {
        const r = await create(user, type, config);
        expect(r.status, `${type} ${JSON.stringify(config)}`).to.equal(400);
        expect(r.body.error, `${type} ${JSON.stringify(config)}`).to.match(message);
      }
    });

    it('masks every provider secret and keeps it when the mask comes back', async () => {
      const { user } = await setup('secrets');
      const telegram = await channel(user, 'chat', { provider: 'telegram', bot_token: '123456:SECRET-bot-token-wxyz', chat_id: -1001234 });
      expect(telegram.config).to.deep.equal({ provider: 'telegram', bot_token: '****wxyz', chat_id: '-1001234' });
      const pushover = await channel(user, 'chat', { provider: 'pushover', token: 'app-token-0001', user: 'user-key-0002' });
      expect(pushover.config).to.include({ token: '****0001', user: '****0002' });
      const ntfy = await channel(user, 'chat', { provider: 'ntfy', server_url: 'https://ntfy.example.com', topic: 'ops', token: 'tk_ntfy9999' });
      expect(ntfy.config.token).to.equal('****9999');
      const opsgenie = await channel(user, 'pager', { provider: 'opsgenie', api_key: 'genie-key-abcd', region: 'eu' });
      expect(opsgenie.config).to.deep.equal({ provider: 'opsgenie', api_key: '****abcd', region: 'eu' });
      const [row] = await sql<{ config: Record<string, string> }>('select config from notification_channels where id = $1', [pushover.id]);
      expect(JSON.stringify(row!.config)).to.not.include('app-token').and.not.include('user-key');

      const put = await cp.api.put(`/notification-channels/${telegram.id}`, { config: { provider: 'telegram', bot_token: '****wxyz', chat_id: '@ops_room' } }, user.token);
      expect(put.status, put.text).to.equal(200);
      expect(put.body.config).to.include({ bot_token: '****wxyz', chat_id: '@ops_room' });
      const [kept] = await sql<{ config: Record<string, string> }>('select config from notification_channels where id = $1', [telegram.id]);
      expect(kept!.config.bot_token).to.not.equal('****wxyz');
    });

    it('checks a PUT that changes the provider against the new provider, and carries no masked secret across', async () => {
      const { user } = await setup('switch');
      const c = await channel(user, 'chat', { provider: 'slack', webhook_url: 'https://hooks.example.com/a' });
      const toTelegram = await cp.api.put(`/notification-channels/${c.id}`, { config: { provider: 'telegram', webhook_url: 'https://hooks.example.com/a' } }, user.token);
      expect(toTelegram.status).to.equal(400);
      expect(toTelegram.body.error).to.match(/telegram/);
      const gotify = await channel(user, 'chat', { provider: 'gotify', server_url: 'https://push.example.com', token: 'gotify-token-1111' });
      const toNtfy = await cp.api.put(`/notification-channels/${gotify.id}`, { config: { provider: 'ntfy', server_url: 'https://ntfy.example.com', topic: 'ops', token: '****1111' } }, user.token);
      expect(toNtfy.status).to.equal(400);
      expect(toNtfy.body.error).to.match(/config\.token: give the new provider's token/);
      const withToken = await cp.api.put(`/notification-channels/${gotify.id}`, { config: { provider: 'ntfy', server_url: 'https://ntfy.example.com', topic: 'ops', token: 'tk_new2222' } }, user.token);
      expect(withToken.body.config).to.deep.equal({ provider: 'ntfy', server_url: 'https://ntfy.example.com', topic: 'ops', token: '****2222' });
      const toGeneric = await cp.api.put(`/notification-channels/${c.id}`, { config: { webhook_url: 'https://hooks.example.com/b' } }, user.token);
      expect(toGeneric.body.config).to.deep.equal({ webhook_url: 'https://hooks.example.com/b' });
    });
  });

  describe('delivery per provider', () => {
    it('slack: Block Kit in a coloured attachment, with the status, facts and a dashboard button', async () => {
      const { request, service } = await delivered('slack', 'chat', (b) => ({ provider: 'slack', webhook_url: `${receiver.url}${b}` }), (b) => b);
      expect(request.headers['content-type']).to.equal('application/json');
      expect(request.json.text).to.equal('[FIRING] [CRITICAL] slack-svc is RED');
      const [attachment] = request.json.attachments;
      expect(attachment.color).to.equal('#d92d20');
      expect(attachment.blocks.map((b: any) => b.type)).to.deep.equal(['header', 'section', 'section', 'actions']);
      expect(attachment.blocks[1].text.text).to.match(/connection refused/);
      expect(attachment.blocks[2].fields.map((f: any) => f.text)).to.deep.equal(['*Status*\nFIRING', '*Severity*\nCRITICAL', '*Service*\nslack-svc', '*Location*\neu-west']);
      expect(attachment.blocks[3].elements[0]).to.include({ type: 'button', url: link(service.id) });
    });

    it('discord: one embed with title, url, colour and inline fields, pinging nobody', async () => {
      const { request, service } = await delivered('discord', 'chat', (b) => ({ provider: 'discord', webhook_url: `${receiver.url}${b}` }), (b) => b);
      expect(request.json.allowed_mentions).to.deep.equal({ parse: [] });
      const [embed] = request.json.embeds;
      expect(embed).to.include({ title: '[FIRING] [CRITICAL] discord-svc is RED', url: link(service.id), color: 0xd92d20 });
      expect(embed.description).to.include('connection refused');
      expect(embed.fields).to.deep.include({ name: 'Location', value: 'eu-west', inline: true });
      expect(embed.fields).to.deep.include({ name: 'Service', value: 'discord-svc', inline: true });
    });

    it('teams: an Adaptive Card in a Workflows message', async () => {
      const { request, service } = await delivered('teams', 'chat', (b) => ({ provider: 'teams', webhook_url: `${receiver.url}${b}` }), (b) => b);
      expect(request.json.type).to.equal('message');
      const [attachment] = request.json.attachments;
      expect(attachment.contentType).to.equal('application/vnd.microsoft.card.adaptive');
      const card = attachment.content;
      expect(card).to.include({ type: 'AdaptiveCard', version: '1.4' });
      expect(card.body[0]).to.include({ type: 'TextBlock', text: '[FIRING] [CRITICAL] teams-svc is RED', color: 'Attention' });
      expect(card.body[2].facts).to.deep.include({ title: 'Location', value: 'eu-west' });
      expect(card.actions[0]).to.deep.equal({ type: 'Action.OpenUrl', title: 'Open in Outpost', url: link(service.id) });
    });

    it('telegram: sendMessage on the bot path of api_url, HTML with escaping', async () => {
      const { request, service } = await delivered(
        'telegram',
        'chat',
        (b) => ({ provider: 'telegram', bot_token: '123456:AAbb-cc_DD', chat_id: '-100987', api_url: `${receiver.url}${b}` }),
        (b) => `${b}/bot123456:AAbb-cc_DD/sendMessage`,
      );
      expect(request.json).to.include({ chat_id: '-100987', parse_mode: 'HTML' });
      expect(request.json.text).to.match(/^<b>\[FIRING\] \[CRITICAL\] telegram-svc is RED<\/b>\n/);
      expect(request.json.text).to.include('<b>Location:</b> eu-west');
      expect(request.json.text).to.include(`<a href="${link(service.id)}">Open in Outpost</a>`);
      // The rule's name is quoted in the alert message: quotes pass, tags never do.
      expect(request.json.text).to.not.match(/<(?!\/?b>|a href|\/a>)/);
    });

    it('mattermost: an attachment with colour, title link and short fields', async () => {
      const { request, service } = await delivered('mattermost', 'chat', (b) => ({ provider: 'mattermost', webhook_url: `${receiver.url}${b}` }), (b) => b);
      const [attachment] = request.json.attachments;
      expect(attachment).to.include({ color: '#d92d20', title: '[FIRING] [CRITICAL] mattermost-svc is RED', title_link: link(service.id) });
      expect(attachment.fallback).to.include('mattermost-svc is RED');
      expect(attachment.fields).to.deep.include({ short: true, title: 'Location', value: 'eu-west' });
    });

    it('google_chat: a cardsV2 card with fallback text and a link button', async () => {
      const { request, service } = await delivered('gchat', 'chat', (b) => ({ provider: 'google_chat', webhook_url: `${receiver.url}${b}?key=k&token=t` }), (b) => `${b}?key=k&token=t`);
      expect(request.json.fallbackText).to.include('gchat-svc is RED');
      const card = request.json.cardsV2[0].card;
      expect(card.header.title).to.equal('[FIRING] [CRITICAL] gchat-svc is RED');
      expect(card.header.subtitle).to.equal('gchat-svc · eu-west');
      const widgets = card.sections[0].widgets;
      expect(widgets).to.deep.include({ decoratedText: { topLabel: 'Location', text: 'eu-west' } });
      expect(widgets.at(-1).buttonList.buttons[0].onClick.openLink.url).to.equal(link(service.id));
    });

    it('ntfy: JSON publish to the server root with topic, priority, tags, click and a bearer token', async () => {
      const { request, service } = await delivered('ntfy', 'chat', (b) => ({ provider: 'ntfy', server_url: `${receiver.url}${b}`, topic: 'ops-alerts', token: 'tk_secret' }), (b) => `${b}/`);
      expect(request.method).to.equal('POST');
      expect(request.headers.authorization).to.equal('Bearer tk_secret');
      expect(request.json).to.include({ topic: 'ops-alerts', title: '[FIRING] [CRITICAL] ntfy-svc is RED', priority: 5, click: link(service.id) });
      expect(request.json.tags).to.deep.equal(['rotating_light', 'outpost']);
      expect(request.json.message).to.include('Location: eu-west');
    });

    it('gotify: /message with X-Gotify-Key, priority and a click extra', async () => {
      const { request, service } = await delivered('gotify', 'chat', (b) => ({ provider: 'gotify', server_url: `${receiver.url}${b}`, token: 'AppToken.123' }), (b) => `${b}/message`);
      expect(request.headers['x-gotify-key']).to.equal('AppToken.123');
      expect(request.json).to.include({ title: '[FIRING] [CRITICAL] gotify-svc is RED', priority: 9 });
      expect(request.json.extras['client::notification']).to.deep.equal({ click: { url: link(service.id) } });
      expect(request.json.message).to.include('Service: gotify-svc');
    });

    it('pushover: the messages form with token, user, title, message, url and priority', async () => {
      const { request, service } = await delivered('pushover', 'chat', (b) => ({ provider: 'pushover', token: 'app-token', user: 'user-key', api_url: `${receiver.url}${b}` }), (b) => `${b}/1/messages.json`);
      expect(request.headers['content-type']).to.equal('application/x-www-form-urlencoded');
      const form = Object.fromEntries(new URLSearchParams(request.body));
      expect(form).to.include({ token: 'app-token', user: 'user-key', title: '[FIRING] [CRITICAL] pushover-svc is RED', url: link(service.id), priority: '1' });
      expect(form.message!.length).to.be.at.most(1024);
      expect(form.message).to.include('Location: eu-west');
    });

    it('keeps the generic {"text"} body when no provider is set', async () => {
      const { request } = await delivered('generic', 'chat', (b) => ({ webhook_url: `${receiver.url}${b}` }), (b) => b);
      expect(Object.keys(request.json)).to.deep.equal(['text']);
    });

    it('tells every provider the acknowledgement and the resolution, in their colours', async () => {
      const { request, service, user } = await delivered('lifecycle', 'chat', (b) => ({ provider: 'discord', webhook_url: `${receiver.url}${b}` }), (b) => b);
      const [alert] = (await cp.api.get('/alerts', user.token)).body;
      await cp.api.post(`/alerts/${alert.id}/acknowledge`, undefined, user.token);
      const ack = await receiver.waitFor((q) => q.url === request.url && /ACKNOWLEDGED/.test(q.json?.embeds?.[0]?.title ?? ''), 'the acknowledgement');
      expect(ack.json.embeds[0].color).to.equal(0xeaaa08);
      expect(ack.json.embeds[0].fields, 'the locations the service is checked from').to.deep.include({ name: 'Location', value: 'eu-west', inline: true });
      await agent.sendResults([{ serviceId: service.id, ok: true }]);
      const resolved = await receiver.waitFor((q) => q.url === request.url && /RESOLVED/.test(q.json?.embeds?.[0]?.title ?? ''), 'the resolution');
      expect(resolved.json.embeds[0].color).to.equal(0x12b76a);
      expect(resolved.json.embeds[0].fields).to.deep.include({ name: 'Location', value: 'eu-west', inline: true });
    });
  });

  describe('test messages', () => {
    it('sends the test event in every provider format', async () => {
      const { user } = await setup('tests');
      const base = `/tests-${randomUUID()}`;
      const configs: [Record<string, unknown>, string][] = [
        ...['slack', 'discord', 'teams', 'mattermost', 'google_chat'].map((p): [Record<string, unknown>, string] => [{ provider: p, webhook_url: `${receiver.url}${base}/${p}` }, `${base}/${p}`]),
        [{ provider: 'telegram', bot_token: '1:t', chat_id: 42, api_url: `${receiver.url}${base}/tg` }, `${base}/tg/bot1:t/sendMessage`],
        [{ provider: 'ntfy', server_url: `${receiver.url}${base}/ntfy`, topic: 't' }, `${base}/ntfy/`],
        [{ provider: 'gotify', server_url: `${receiver.url}${base}/gotify`, token: 'g' }, `${base}/gotify/message`],
        [{ provider: 'pushover', token: 'p', user: 'u', api_url: `${receiver.url}${base}/po` }, `${base}/po/1/messages.json`],
      ];
      for (const [config, path] of configs) {
        const c = await channel(user, 'chat', config);
        expect((await cp.api.post(`/notification-channels/${c.id}/test`, undefined, user.token)).status).to.equal(202);
        const request = await receiver.waitFor((q) => q.url === path, `the ${String(config.provider)} test message`);
        expect(request.status, String(config.provider)).to.equal(200);
        const text = request.json ? request.body : [...new URLSearchParams(request.body).values()].join('\n');
        expect(text, String(config.provider)).to.match(/Test notification/);
      }
    });
  });

  describe('storm digests', () => {
    it('sends a provider one digest naming the alerts, linking to the alerts page', async () => {
      const user = await cp.api.newUser('storm');
      await sql(`update organizations set plan = 'unlimited' where id = $1`, [user.orgId]);
      await cp.api.post('/alert-rules', { name: 'all', severity: 'warning' }, user.token);
      const path = `/storm-${randomUUID()}`;
      await channel(user, 'chat', { provider: 'slack', webhook_url: `${receiver.url}${path}` });
      const services = [];
      for (let i = 0; i < 14; i++) services.push((await cp.api.post('/services', { name: `storm-${i}`, endpoint: 'http://127.0.0.1:9/', check_type: 'HTTP', locations: ['eu-west'] }, user.token)).body);
      for (const s of services) await fail(s.id);
      const digest = await receiver.waitFor((q) => q.url === path && /alerts opened in a short time/.test(q.json?.text ?? ''), 'the digest');
      const [attachment] = digest.json.attachments;
      expect(attachment.color).to.equal('#f79009');
      expect(attachment.blocks[1].text.text).to.match(/storm-13 is RED/);
      expect(attachment.blocks[3].elements[0].url).to.equal(`${PUBLIC_URL}/alerts`);
      expect(receiver.requests.filter((q) => q.url === path).length).to.be.at.most(11);
    });
  });

  describe('opsgenie', () => {
    it('creates the alert with the alert id as alias, then acknowledges and closes it by alias', async () => {
      const { user, service } = await setup('opsgenie');
      const base = `/opsgenie-${randomUUID()}`;
      await channel(user, 'pager', { provider: 'opsgenie', api_key: 'genie-key-1', api_url: `${receiver.url}${base}` });
      await fail(service.id);
      const [alert] = (await cp.api.get('/alerts', user.token)).body;
      const created = await receiver.waitFor((q) => q.url === `${base}/v2/alerts`, 'the create');
      expect(created.headers.authorization).to.equal('GenieKey genie-key-1');
      expect(created.json).to.include({ message: 'opsgenie-svc is RED', alias: alert.id, source: 'Outpost', priority: 'P1', entity: 'opsgenie-svc' });
      expect(created.json.details).to.include({ service_id: service.id, link: link(service.id), locations: 'eu-west' });
      await cp.api.post(`/alerts/${alert.id}/acknowledge`, undefined, user.token);
      const ack = await receiver.waitFor((q) => q.url === `${base}/v2/alerts/${alert.id}/acknowledge?identifierType=alias`, 'the acknowledge');
      expect(ack.headers.authorization).to.equal('GenieKey genie-key-1');
      expect(ack.json).to.include({ source: 'Outpost' });
      await cp.api.post(`/alerts/${alert.id}/resolve`, undefined, user.token);
      await receiver.waitFor((q) => q.url === `${base}/v2/alerts/${alert.id}/close?identifierType=alias`, 'the close');
    });

    it('keeps PagerDuty the default, and as provider "pagerduty", with a link to the service', async () => {
      const { user, service } = await setup('pagerduty');
      await channel(user, 'pager', { provider: 'pagerduty', integration_key: 'routing-key-pd' });
      await fail(service.id);
      const trigger = await receiver.waitFor((q) => q.url === '/pagerduty' && q.json?.routing_key === 'routing-key-pd', 'the trigger');
      expect(trigger.json).to.include({ event_action: 'trigger' });
      expect(trigger.json.links).to.deep.equal([{ href: link(service.id), text: 'Open in Outpost' }]);
    });

    it('sends a test alert to Opsgenie', async () => {
      const { user } = await setup('opsgenie-test');
      const base = `/opsgenie-test-${randomUUID()}`;
      const c = await channel(user, 'pager', { provider: 'opsgenie', api_key: 'genie-key-2', api_url: `${receiver.url}${base}` });
      await cp.api.post(`/notification-channels/${c.id}/test`, undefined, user.token);
      const created: ReceivedRequest = await receiver.waitFor((q) => q.url === `${base}/v2/alerts`, 'the test alert');
      expect(created.json).to.include({ priority: 'P5', source: 'Outpost' });
      expect(created.json.alias).to.match(/^outpost-test-/);
    });
  });
});
