// The chat formats within each provider's documented limits, whatever an alert's text holds.
import { expect } from 'chai';
import type { AlertJson } from '../../control-plane/src/features/alerting/alert.js';
import type { NotificationPayload } from '../../control-plane/src/features/notifications/delivery.js';
import { chatMessage } from '../../control-plane/src/features/notifications/senders/chat/chat-message.js';
import { discordBody } from '../../control-plane/src/features/notifications/senders/chat/discord.js';
import { ntfyBody } from '../../control-plane/src/features/notifications/senders/chat/ntfy.js';
import { pushoverForm } from '../../control-plane/src/features/notifications/senders/chat/pushover.js';
import { slackBody } from '../../control-plane/src/features/notifications/senders/chat/slack.js';
import { telegramText } from '../../control-plane/src/features/notifications/senders/chat/telegram.js';
import { truncate, truncateBytes, truncateEscaped } from '../../control-plane/src/features/notifications/senders/truncate.js';

const URL = 'https://outpost.example.com';

function payload(over: Partial<AlertJson> = {}, event: NotificationPayload['event'] = 'alert_fired'): NotificationPayload {
  const alert = {
    id: 'a1', organization_id: 'o1', service_id: 's1', service_name: 'api', alert_rule_id: 'r1', severity: 'warning', title: 'api is RED',
    message: 'check failed: timeout', status: 'firing', fired_at: '2026-01-01T00:00:00.000Z', last_fired_at: '2026-01-01T00:00:00.000Z',
    acknowledged_at: null, acknowledged_by: null, resolved_at: null, resolved_by: null, updated_at: '2026-01-01T00:00:00.000Z', ...over,
  } as AlertJson;
  return { event, alert, service: { id: 's1', name: 'api', endpoint: 'https://api.example.com', status: 'RED' }, text: `[FIRING] ${alert.title}`, locations: ['eu-west', 'us-east'] };
}

describe('chat messages', () => {
  describe('chatMessage', () => {
    it('gives status, severity, service, locations, colour and the service link', () => {
      const m = chatMessage({ payload: payload() }, URL);
      expect(m).to.include({ status: 'FIRING', severity: 'WARNING', title: 'api is RED', service: 'api', colour: 0xf79009, link: `${URL}/services/s1`, urgency: 4 });
      expect(m.locations).to.deep.equal(['eu-west', 'us-east']);
      expect(chatMessage({ payload: payload({}, 'alert_resolved') }, URL)).to.include({ status: 'RESOLVED', colour: 0x12b76a, urgency: 1 });
    });

    it('sums up a digest: the worst severity, every service once, the alerts page', () => {
      const digest = [payload(), payload({ severity: 'critical', title: 'web is RED', service_name: 'web' }), payload()];
      digest[1]!.service = null;
      const m = chatMessage({ payload: digest[0]!, digest }, URL);
      expect(m).to.include({ title: '3 alerts opened in a short time', severity: 'CRITICAL', service: 'api, web', link: `${URL}/alerts` });
      expect(m.body).to.match(/^- api is RED/);
    });
  });

  describe('provider limits', () => {
    const huge = chatMessage({ payload: payload({ title: 'T'.repeat(5000), message: `<b>&${'é'.repeat(20_000)}` }) }, URL);

    it('keeps Discord embeds within 256/4096/1024 and 6000 characters in all', () => {
      const [embed] = discordBody(huge).embeds;
      expect(embed!.title.length).to.equal(256);
      expect(embed!.title.endsWith('…')).to.equal(true);
      expect(embed!.description.length).to.be.at.most(4096);
      const total = embed!.title.length + embed!.description.length + embed!.footer.text.length + embed!.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
      expect(total).to.be.at.most(6000);
    });

    it('keeps Slack header and section text within 150 and 3000 characters', () => {
      const blocks = slackBody(huge).attachments[0]!.blocks as any[];
      expect(blocks[0].text.text.length).to.equal(150);
      expect(blocks[1].text.text.length).to.be.at.most(3000);
      expect(blocks[1].text.text).to.match(/^&lt;b&gt;&amp;/);
      const ampersands = slackBody(chatMessage({ payload: payload({ message: '&'.repeat(4000) }) }, URL)).attachments[0]!.blocks as any[];
      expect(ampersands[1].text.text.length).to.be.at.most(3000);
      expect(ampersands[1].text.text).to.match(/(&amp;)+…$/);
    });

    it('keeps Telegram text within 4096 characters, escaped, with whole tags', () => {
      const text = telegramText(huge);
      expect(text.length).to.be.at.most(4096);
      expect(text).to.include('&lt;b&gt;&amp;');
      expect(text.match(/<b>/g)!.length).to.equal(text.match(/<\/b>/g)!.length);
      expect(text.endsWith('>Open in Outpost</a>')).to.equal(true);
    });

    it('keeps Pushover title and message within 250 and 1024 characters, ntfy within 4000 bytes', () => {
      const form = pushoverForm(huge, 't', 'u');
      expect(form.get('title')!.length).to.equal(250);
      expect(form.get('message')!.length).to.equal(1024);
      expect(Buffer.byteLength(ntfyBody(huge, 'ops').message)).to.be.at.most(4000);
    });
  });

  describe('truncate', () => {
    it('leaves short text alone and cuts long text with …, by characters or by bytes', () => {
      expect(truncate('abc', 3)).to.equal('abc');
      expect(truncate('abcd', 3)).to.equal('ab…');
      expect(truncate('😀😀😀😀', 3)).to.equal('😀😀…');
      expect(truncateBytes('ééé', 6)).to.equal('ééé');
      expect(truncateBytes('éééé', 6)).to.equal('é…');
      expect(truncateEscaped('a&b', 9, (s) => s.replace(/&/g, '&amp;'))).to.equal('a&amp;b');
      expect(truncateEscaped('a&b', 6, (s) => s.replace(/&/g, '&amp;'))).to.equal('a…');
    });
  });
});
