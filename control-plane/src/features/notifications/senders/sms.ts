// SMS through an HTTP gateway with the common form POST (To, From, Body) and basic auth;
// the text is trimmed to one 160-character segment.
import { digestText } from '../message.js';
import { httpSend } from './http-send.js';
import { SendError, type Sender } from './sender.js';

const SEGMENT = 160;

export function smsSender(gateway: { url: string; user?: string; password?: string; from?: string } | undefined): Sender {
  return async ({ config, payload, digest }) => {
    if (!gateway) throw new SendError('SMS delivery is not configured: set SMS_GATEWAY_URL', null, true);
    const text = digest ? digestText(digest) : payload.text;
    const form = new URLSearchParams({ To: String(config.to), Body: text.length > SEGMENT ? `${text.slice(0, SEGMENT - 1)}…` : text });
    if (gateway.from) form.set('From', gateway.from);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (gateway.user) headers.authorization = `Basic ${Buffer.from(`${gateway.user}:${gateway.password ?? ''}`).toString('base64')}`;
    return httpSend(gateway.url, { headers, body: form.toString() });
  };
}
