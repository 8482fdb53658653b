// Sends one claimed subscriber delivery: a mail through SMTP, or a JSON POST to a webhook (a
// webhook needs no confirmation, so only notices go there). Failures are SendErrors; a
// permanent one (no SMTP settings, a refused address) is not retried.
import type { Clock } from '../../clock.js';
import { SendError } from '../notifications/senders/sender.js';
import type { SmtpTransport } from '../notifications/senders/smtp-transport.js';
import type { ClaimedSubscriberDelivery } from './subscriber-delivery.js';
import { mailFor, webhookBody } from './subscriber-messages.js';
import type { SubscriptionLinks } from './subscription-links.js';
import type { WebhookAddressGuard } from './webhook-addresses.js';
import { postWebhook } from './webhook-post.js';

export type SubscriberSender = (delivery: ClaimedSubscriberDelivery) => Promise<void>;

export interface SubscriberSenderDeps {
  /** Absent without SMTP settings; `smtpMissing` then says which. */
  smtp: SmtpTransport | undefined;
  smtpMissing: string;
  links: SubscriptionLinks;
  publicUrl: string;
  guard: WebhookAddressGuard;
  clock: Clock;
}

export function createSubscriberSender({ smtp, smtpMissing, links, publicUrl, guard, clock }: SubscriberSenderDeps): SubscriberSender {
  return async ({ payload, subscriber }) => {
    const pageUrl = `${publicUrl}/status/${payload.status_page.slug}`;
    const unsubscribeUrl = links.unsubscribeUrl(subscriber.id);
    if (subscriber.webhookUrl) {
      if (payload.kind !== 'notice') return;
      await postWebhook(subscriber.webhookUrl, JSON.stringify(webhookBody(payload, { pageUrl, unsubscribeUrl }, clock.now())), guard);
      return;
    }
    if (!smtp) throw new SendError(smtpMissing, null, true);
    const confirmUrl = payload.kind === 'confirmation' ? links.confirmUrl(subscriber.id) : undefined;
    try {
      await smtp.send({ ...mailFor(payload, { pageUrl, unsubscribeUrl, confirmUrl }), to: subscriber.email! });
    } catch (err) {
      throw new SendError(`SMTP: ${(err as Error).message}`, (err as { responseCode?: number }).responseCode ?? null);
    }
  };
}
