// One SMTP transport per setting, shared by every sender of mail (alert e-mails, subscriber
// mails, reports). nodemailer (about 650 KB of source, a few MB of heap) is loaded by the first
// message, not by every control plane at start.
import type { SendMailOptions, Transporter } from 'nodemailer';
import type { NotificationSettings } from '../../../config.js';

export type SmtpSettings = NonNullable<NotificationSettings['smtp']>;

/** One plain-text message without its recipients, as the features compose them. */
export interface OutgoingMail {
  subject: string;
  text: string;
  /** Extra headers, e.g. List-Unsubscribe. */
  headers?: Record<string, string>;
  attachments?: { filename: string; content: string; contentType: string }[];
}

export interface SmtpTransport {
  /** Sends one message (an OutgoingMail and its `to`, or any nodemailer message) from SMTP_FROM. */
  send(message: SendMailOptions): Promise<void>;
}

export function smtpTransport(smtp: SmtpSettings): SmtpTransport {
  let transport: Promise<Transporter> | undefined;
  return {
    async send(message) {
      transport ??= import('nodemailer').then(({ default: nodemailer }) =>
        nodemailer.createTransport({
          host: smtp.host,
          port: smtp.port,
          secure: smtp.secure,
          auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 10_000,
        }),
      );
      await (await transport).sendMail({ ...message, from: smtp.from });
    },
  };
}
