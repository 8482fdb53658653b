// SMS through an HTTP gateway with the common form POST (To, From, Body) and basic auth;
// the text is trimmed to one 160-character segment.
import { digestText } from '../message.js';
import { httpSend } from './http-send.js';
import { SendError, type SendRequest, type Sender } from './sender.js';

const SEGMENT = 160;

export function smsSender(gateway: { url: string; user?: string; password?: string; from?: string } | undefined): Sender {
  return async (request) => {
    if (!gateway) throw new SendError('SMS delivery is not configured: set SMS_GATEWAY_URL', null, true);
    const form = new URLSearchParams({ To: String(request.config.to), Body: smsText(request) });
    if (gateway.from) form.set('From', gateway.from);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (gateway.user) headers.authorization = `Basic ${Buffer.from(`${gateway.user}:${gateway.password ?? ''}`).toString('base64')}`;
    return httpSend(gateway.url, { headers, body: form.toString() });
  };
}

/** The text of the one segment sent: the digest, the rendered template or the default sentence. */
export function smsText({ payload, digest, rendered }: Pick<SendRequest, 'payload' | 'digest' | 'rendered'>): string {
  const text = digest ? digestText(digest) : (rendered?.text ?? payload.text);
  return text.length > SEGMENT ? `${text.slice(0, SEGMENT - 1)}…` : text;
}
