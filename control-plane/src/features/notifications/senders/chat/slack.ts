// Slack incoming webhook: a coloured attachment of Block Kit blocks (header, detail, facts, a
// button to the dashboard), with top-level text for notifications. Limits: header 150,
// section text 3000, field 2000 characters.
import { postJson } from '../http-send.js';
import { facts, headline, hex, type ChatMessage } from './chat-message.js';
import { truncate, truncateEscaped } from '../truncate.js';
import { escapeMarkup as escape } from './escape-markup.js';
import type { ProviderSend } from './provider-send.js';

export function slackBody(m: ChatMessage) {
  return {
    text: truncateEscaped(headline(m), 3000, escape),
    attachments: [
      {
        color: hex(m.colour),
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: truncate(headline(m), 150), emoji: true } },
          { type: 'section', text: { type: 'mrkdwn', text: truncateEscaped(m.body, 3000, escape) } },
          { type: 'section', fields: facts(m).map((f) => ({ type: 'mrkdwn', text: `*${f.label}*\n${truncateEscaped(f.value, 1900, escape)}` })) },
          { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: m.linkLabel }, url: m.link }] },
        ],
      },
    ],
  };
}

export const sendSlack: ProviderSend = (m, config) => postJson(String(config.webhook_url), slackBody(m));
