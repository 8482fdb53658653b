// Slack incoming webhook: a coloured attachment of Block Kit blocks (header, detail, facts, a
// button to the dashboard), with top-level text for notifications. Limits: header 150,
// section text 3000, field 2000 characters.
import { postJson } from '../http-send.js';
import { facts, headline, hex, type ChatMessage } from './chat-message.js';
import { truncate } from '../truncate.js';
import type { ProviderSend } from './provider-send.js';

/** Slack's mrkdwn treats &, < and > as control characters. */
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function slackBody(m: ChatMessage) {
  return {
    text: truncate(headline(m), 3000),
    attachments: [
      {
        color: hex(m.colour),
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: truncate(headline(m), 150), emoji: true } },
          { type: 'section', text: { type: 'mrkdwn', text: truncate(escape(m.body), 3000) } },
          { type: 'section', fields: facts(m).map((f) => ({ type: 'mrkdwn', text: truncate(`*${f.label}*\n${escape(f.value)}`, 2000) })) },
          { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: m.linkLabel }, url: m.link }] },
        ],
      },
    ],
  };
}

export const sendSlack: ProviderSend = (m, config) => postJson(String(config.webhook_url), slackBody(m));
