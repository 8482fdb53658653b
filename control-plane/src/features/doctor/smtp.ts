// SMTP reachability: connect, EHLO, STARTTLS and log in as a delivery would (nodemailer's
// verify), without sending anything.
import type { NotificationSettings } from '../../config.js';
import { fail, ok, warn, type CheckResult } from './check.js';

export const SMTP_TIMEOUT_MS = 5_000;
const NAME = 'smtp';

type Smtp = NonNullable<NotificationSettings['smtp']>;

export async function checkSmtp(smtp: Smtp | undefined, timeoutMs = SMTP_TIMEOUT_MS): Promise<CheckResult> {
  if (!smtp) return warn(NAME, 'not configured: e-mail channels cannot send', 'Set SMTP_HOST (and SMTP_PORT, SMTP_USER, SMTP_PASSWORD, SMTP_FROM, SMTP_SECURE as needed) if anyone uses e-mail channels.');
  const where = `${smtp.host}:${smtp.port}${smtp.secure ? ' (TLS)' : ''}`;
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  let timer: NodeJS.Timeout | undefined;
  // The socket timeouts bound each step; this bounds them together.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([transport.verify(), deadline]);
    return ok(NAME, `${where} accepted the connection${smtp.user ? ' and the login' : ''}`);
  } catch (err) {
    return fail(NAME, `${where}: ${(err as Error).message}`, 'Check SMTP_HOST, SMTP_PORT, SMTP_SECURE and the credentials, and that this host may reach the SMTP server.');
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}
