// Assembles the subscribers feature for the composition root: the service behind the routes,
// the notifier the incidents and maintenance code tells, and the outbox job that delivers.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../clock.js';
import type { NotificationSettings } from '../../config.js';
import type { Tx } from '../../db/tx.js';
import { createDueTimer, type DueTimer } from '../../jobs/due-timer.js';
import type { RateLimit, RateLimiterFactory } from '../../limits/rate-limiter.js';
import type { Logger } from '../../logger.js';
import type { RetryPolicy } from '../notifications/dispatcher.js';
import { emailNotConfigured } from '../notifications/senders/email.js';
import { smtpTransport } from '../notifications/senders/smtp-transport.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { SubscriberNotifier } from './subscriber-notice.js';
import { createSubscriberDeliveriesRepository } from './subscriber-deliveries.repository.js';
import { subscriberDispatch } from './subscriber-dispatcher.js';
import { createSubscriberSender } from './subscriber-sender.js';
import { createSubscribersRepository } from './subscribers.repository.js';
import { createSubscribersService, type SubscribersDeps, type SubscribersService } from './subscribers.service.js';
import { createSubscriptionLinks } from './subscription-links.js';
import { webhookAddressGuard } from './webhook-addresses.js';

export interface SubscribersFeatureDeps {
  em: () => EntityManager;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  /** SMTP, PUBLIC_URL (the links) and SUBSCRIBER_WEBHOOKS_ALLOW_PRIVATE. */
  notifications: NotificationSettings;
  /** Signs the links of the mails (a key is derived from it per purpose). */
  jwtSecret: string;
  limiters: RateLimiterFactory;
  limits: { perAddress: RateLimit | undefined; perEmail: RateLimit | undefined };
  visiblePage: SubscribersDeps['visiblePage'];
  access: OrganizationAccess;
  retry: RetryPolicy;
  clock: Clock;
  /** The longest the outbox job sleeps with nothing due (work of another replica is found by then). */
  maxWaitMs: number;
  logger: Logger;
}

export interface SubscribersFeature {
  service: SubscribersService;
  notifier: SubscriberNotifier;
  /** Delivers the outbox; started and stopped with the other jobs. */
  job: DueTimer;
}

export function createSubscribersFeature(d: SubscribersFeatureDeps): SubscribersFeature {
  const { clock } = d;
  const deliveries = createSubscriberDeliveriesRepository(d.em);
  const links = createSubscriptionLinks({ secret: d.jwtSecret, publicUrl: d.notifications.publicUrl, clock });
  const guard = webhookAddressGuard(d.notifications.subscriberWebhooksAllowPrivate);
  const logger = d.logger.child({ component: 'subscribers' });
  const send = createSubscriberSender({
    smtp: d.notifications.smtp && smtpTransport(d.notifications.smtp),
    smtpMissing: emailNotConfigured(d.notifications),
    links,
    publicUrl: d.notifications.publicUrl,
    guard,
    clock,
  });
  const job = createDueTimer('subscriber deliveries', subscriberDispatch({ deliveries, send, retry: d.retry, clock, logger }), { clock, maxWaitMs: d.maxWaitMs, logger });
  const wake = () => job.nudge(clock.now());
  const service = createSubscribersService({
    subscribers: createSubscribersRepository(d.em),
    deliveries,
    visiblePage: d.visiblePage,
    access: d.access,
    links,
    guard,
    limits: {
      perAddress: d.limits.perAddress && d.limiters('subscribe-address', d.limits.perAddress),
      perEmail: d.limits.perEmail && d.limiters('subscribe-email', d.limits.perEmail),
    },
    emailEnabled: d.notifications.smtp !== undefined,
    transaction: d.transaction,
    wake,
    clock,
  });
  const notifier: SubscriberNotifier = {
    async enqueue(tx, notices) {
      await deliveries.enqueueNotices(tx, notices, clock.now());
    },
    wake,
  };
  return { service, notifier, job };
}
