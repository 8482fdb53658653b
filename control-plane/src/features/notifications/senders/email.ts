// E-mail through SMTP (nodemailer). Without SMTP settings every e-mail delivery fails at
// once, naming the missing settings, instead of retrying for an hour.
import type { NotificationSettings } from '../../../config.js';
import { digestText } from '../message.js';
import { truncate } from './truncate.js';
import { SendError, type SendRequest, type Sender } from './sender.js';
import { smtpTransport } from './smtp-transport.js';

export function emailSender(settings: NotificationSettings): Sender {
  const transport = settings.smtp && smtpTransport(settings.smtp);
  return async (request) => {
    const { config } = request;
    if (!transport) throw new SendError(emailNotConfigured(settings), null, true);
    const { subject, text } = emailContent(request);
    try {
      await transport.send({ to: String(config.to), subject, text });
    } catch (err) {
      throw new SendError(`SMTP: ${(err as Error).message}`, (err as { responseCode?: number }).responseCode ?? null);
    }
    return { statusCode: null };
  };
}

/** The subject and plain-text body of one e-mail; a template's subject is one line of at most 200 characters. */
export function emailContent({ payload, digest, rendered }: Pick<SendRequest, 'payload' | 'digest' | 'rendered'>): { subject: string; text: string } {
  if (digest) return { subject: `[Outpost] ${digest.length} alerts`, text: digestText(digest) };
  return {
    subject: rendered?.subject ? truncate(rendered.subject.replace(/\s+/g, ' ').trim(), 200) : `[Outpost] ${payload.text.slice(0, 200)}`,
    text: rendered?.text ? `${rendered.text}\n` : `${payload.text}\n\n${JSON.stringify({ alert: payload.alert, service: payload.service }, null, 2)}\n`,
  };
}

export function emailNotConfigured(settings: NotificationSettings): string {
  return `e-mail delivery is not configured: set ${settings.smtpMissing.join(', ')} (and SMTP_PORT, SMTP_USER, SMTP_PASSWORD, SMTP_FROM, SMTP_SECURE as needed)`;
}
