// Telegram Bot API sendMessage, HTML parse mode (only &, < and > need escaping there); the
// text is at most 4096 characters once parsed. api_url lets a proxy or gateway stand in.
import { postJson } from '../http-send.js';
import { facts, headline, type ChatMessage } from './chat-message.js';
import { truncate } from '../truncate.js';
import { escapeMarkup as escape } from './escape-markup.js';
import type { ProviderSend } from './provider-send.js';

export const TELEGRAM_API_URL = 'https://api.telegram.org';

export function telegramText(m: ChatMessage): string {
  // Cut before escaping so that no tag or entity is cut in half; the parts stay under 4096.
  const lines = [
    `<b>${escape(truncate(headline(m), 256))}</b>`,
    escape(truncate(m.body, 3000)),
    '',
    ...facts(m).map((f) => `<b>${f.label}:</b> ${escape(truncate(f.value, 120))}`),
    `<a href="${escape(m.link)}">${m.linkLabel}</a>`,
  ];
  return lines.join('\n');
}

export const sendTelegram: ProviderSend = (m, config) =>
  postJson(`${String(config.api_url ?? TELEGRAM_API_URL).replace(/\/+$/, '')}/bot${String(config.bot_token)}/sendMessage`, {
    chat_id: config.chat_id,
    text: telegramText(m),
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
  });
