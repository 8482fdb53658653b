// Pushover messages API: a form with the application token and user key; title 250, message
// 1024, url 512 characters. Priority 1 (bypasses quiet hours) only for critical alerts firing;
// 2 (emergency) would need acknowledging in Pushover too, so it is never used.
import { httpSend } from '../http-send.js';
import { facts, headline, type ChatMessage } from './chat-message.js';
import { truncate } from '../truncate.js';
import type { ProviderSend } from './provider-send.js';

export const PUSHOVER_API_URL = 'https://api.pushover.net';

const PRIORITY: Record<ChatMessage['urgency'], string> = { 1: '-1', 2: '-1', 3: '0', 4: '0', 5: '1' };

export function pushoverForm(m: ChatMessage, token: string, user: string): URLSearchParams {
  return new URLSearchParams({
    token,
    user,
    title: truncate(headline(m), 250),
    message: truncate(`${m.body}\n\n${facts(m).map((f) => `${f.label}: ${f.value}`).join('\n')}`, 1024),
    url: truncate(m.link, 512),
    url_title: m.linkLabel,
    priority: PRIORITY[m.urgency],
  });
}

export const sendPushover: ProviderSend = (m, config) =>
  httpSend(`${String(config.api_url ?? PUSHOVER_API_URL).replace(/\/+$/, '')}/1/messages.json`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: pushoverForm(m, String(config.token), String(config.user)).toString(),
  });
