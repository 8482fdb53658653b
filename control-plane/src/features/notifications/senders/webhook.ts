// Webhooks get the event as JSON ({event, alert, service, text, sent_at}); with a secret the
// raw body is signed: X-Signature-256: sha256=<hex HMAC-SHA256>. A channel template renders
// `text` only.
import { createHmac } from 'node:crypto';
import { httpSend } from './http-send.js';
import type { Sender } from './sender.js';

export const webhookSender: Sender = ({ config, payload, rendered }) => {
  // The body is a contract (API.md): fields added to the payload for chat messages stay out of
  // it, and a template changes only the words of `text`.
  const { event, alert, service } = payload;
  const body = JSON.stringify({ event, alert, service, text: rendered?.text ?? payload.text, sent_at: new Date().toISOString() });
  const headers: Record<string, string> = { ...(config.headers as Record<string, string> | undefined), 'content-type': 'application/json', 'user-agent': 'outpost-webhooks' };
  if (typeof config.secret === 'string') headers['x-signature-256'] = `sha256=${createHmac('sha256', config.secret).update(body).digest('hex')}`;
  return httpSend(String(config.url), { method: String(config.method ?? 'POST'), headers, body });
};
