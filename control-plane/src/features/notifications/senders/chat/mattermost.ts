// Mattermost incoming webhook: a Slack-style message attachment (colour, title linked to the
// dashboard, text, short fields); a post holds at most 16383 characters.
import { postJson } from '../http-send.js';
import { facts, headline, hex, type ChatMessage } from './chat-message.js';
import { truncate } from '../truncate.js';
import type { ProviderSend } from './provider-send.js';

export function mattermostBody(m: ChatMessage) {
  return {
    username: 'Outpost',
    attachments: [
      {
        fallback: truncate(m.text, 1000),
        color: hex(m.colour),
        title: truncate(headline(m), 250),
        title_link: m.link,
        text: truncate(m.body, 8000),
        fields: facts(m).map((f) => ({ short: true, title: f.label, value: truncate(f.value, 500) })),
      },
    ],
  };
}

export const sendMattermost: ProviderSend = (m, config) => postJson(String(config.webhook_url), mattermostBody(m));
