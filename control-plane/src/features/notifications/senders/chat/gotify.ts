// Gotify: POST /message with the application token in X-Gotify-Key; priority 0-10 and a
// click URL in the client::notification extra.
import { postJson } from '../http-send.js';
import { facts, headline, type ChatMessage } from './chat-message.js';
import { truncate } from '../truncate.js';
import type { ProviderSend } from './provider-send.js';

/** Gotify's clients sound from 4 and pop up from 8. */
const PRIORITY: Record<ChatMessage['urgency'], number> = { 1: 2, 2: 4, 3: 5, 4: 7, 5: 9 };

export function gotifyBody(m: ChatMessage) {
  return {
    title: truncate(headline(m), 250),
    message: truncate(`${m.body}\n\n${facts(m).map((f) => `${f.label}: ${f.value}`).join('\n')}\n${m.link}`, 8000),
    priority: PRIORITY[m.urgency],
    extras: {
      'client::display': { contentType: 'text/plain' },
      'client::notification': { click: { url: m.link } },
    },
  };
}

export const sendGotify: ProviderSend = (m, config) =>
  postJson(`${String(config.server_url).replace(/\/+$/, '')}/message`, gotifyBody(m), { 'x-gotify-key': String(config.token) });
