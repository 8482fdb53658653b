// The words of subscriber mails and the body of subscriber webhooks. Every mail carries its
// one-click unsubscribe link in the text and in List-Unsubscribe (RFC 2369) with
// List-Unsubscribe-Post (RFC 8058), so mail clients offer their own unsubscribe button.
import type { OutgoingMail } from '../notifications/senders/smtp-transport.js';
import type { DeliveryPayload, NoticeSubject, PagePayload } from './subscriber-delivery.js';
import { CONFIRM_LINK_TTL_MS } from './subscription-links.js';

export interface MessageLinks {
  pageUrl: string;
  unsubscribeUrl: string;
  /** Set for a confirmation mail. */
  confirmUrl?: string;
}

/** "in_progress" → "In progress". */
const statusWord = (status: string) => {
  const words = status.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** One line: a title from a mail header must not start a new header. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

const when = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');

export function mailFor(payload: DeliveryPayload, links: MessageLinks): OutgoingMail {
  const page = payload.status_page;
  const headers = { 'List-Unsubscribe': `<${links.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
  const footer = `You receive this because you subscribed to updates of ${page.title}.\nUnsubscribe: ${links.unsubscribeUrl}\n`;
  if (payload.kind === 'confirmation') {
    return {
      subject: oneLine(`[${page.title}] Confirm your subscription`),
      text: [
        `Someone, hopefully you, asked to hear about incidents and maintenance of ${page.title} (${links.pageUrl}).`,
        `Confirm the subscription (the link works for ${CONFIRM_LINK_TTL_MS / 86_400_000} days):\n${links.confirmUrl}`,
        'If you did not ask for this, ignore this mail: nothing will be sent without the confirmation.',
        footer,
      ].join('\n\n'),
      headers,
    };
  }
  const s = payload.subject;
  return {
    subject: oneLine(`[${page.title}] ${statusWord(s.status)}: ${s.title}`),
    text: [s.message, ...details(s), `Status page: ${links.pageUrl}`, footer].join('\n\n'),
    headers,
  };
}

function details(s: NoticeSubject): string[] {
  const lines: string[] = [];
  lines.push(s.components.length > 0 ? `Affected components: ${s.components.map((c) => c.name).join(', ')}` : 'Affected: the whole page');
  if (s.type === 'maintenance') lines.push(`Scheduled: ${when(s.starts_at)}${s.ends_at ? ` to ${when(s.ends_at)}` : ''}`);
  return lines;
}

/** The JSON a webhook subscriber receives for a notice. */
export function webhookBody(payload: Extract<DeliveryPayload, { kind: 'notice' }>, links: { pageUrl: string; unsubscribeUrl: string }, sentAt: Date) {
  const page: PagePayload & { url: string } = { ...payload.status_page, url: links.pageUrl };
  return {
    event: payload.event,
    status_page: page,
    [payload.subject.type]: {
      id: payload.subject.id,
      title: payload.subject.title,
      status: payload.subject.status,
      message: payload.subject.message,
      starts_at: payload.subject.starts_at,
      ends_at: payload.subject.ends_at,
      components: payload.subject.components,
    },
    unsubscribe_url: links.unsubscribeUrl,
    sent_at: sentAt.toISOString(),
  };
}
