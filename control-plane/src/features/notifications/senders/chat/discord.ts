// Discord webhook: one embed (title 256, description 4096, field value 1024 characters, 6000
// in all) with the colour, facts and a link; mentions in alert text are never pinged.
import { postJson } from '../http-send.js';
import { facts, headline, type ChatMessage } from './chat-message.js';
import { truncate } from '../truncate.js';
import type { ProviderSend } from './provider-send.js';

export function discordBody(m: ChatMessage) {
  return {
    username: 'Outpost',
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: truncate(headline(m), 256),
        url: m.link,
        description: truncate(`${m.body}\n\n[${m.linkLabel}](${m.link})`, 4096),
        color: m.colour,
        // Short values keep the embed under Discord's 6000-character total.
        fields: facts(m).map((f) => ({ name: f.label, value: truncate(f.value, 256), inline: true })),
        footer: { text: 'Outpost' },
        timestamp: new Date().toISOString(),
      },
    ],
  };
}

export const sendDiscord: ProviderSend = (m, config) => postJson(String(config.webhook_url), discordBody(m));
