// The password reset e-mail: the link, how long it works, and what to do when it was not asked for.
import type { OutgoingMail } from '../notifications/senders/smtp-transport.js';

export function resetMail(resetUrl: string): OutgoingMail {
  const text = [
    'Someone (we hope you) asked to reset the password of your Outpost account.',
    '',
    'Choose a new password here:',
    resetUrl,
    '',
    'The link works once, for one hour. Setting a new password signs you out everywhere.',
    '',
    'If you did not ask for this, ignore this mail: your password stays as it is.',
    '',
  ].join('\n');
  return { subject: '[Outpost] Reset your password', text };
}
