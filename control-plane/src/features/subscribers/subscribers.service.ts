// Subscriptions to status pages: a visitor subscribes an e-mail address (active once the link
// in its confirmation mail is followed) or a webhook (active at once, if it reaches a public
// address); mail links confirm and unsubscribe; admins list, export and remove subscribers.
// The answer to a subscription never says whether the address was subscribed already.
import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import { AppError, notFound, validationFailed } from '../../errors.js';
import type { RateLimiter } from '../../limits/rate-limiter.js';
import type { Actor } from '../auth/actor.js';
import { ROLE_RANK, type OrganizationAccess } from '../organizations/organization-access.js';
import type { Visitor } from '../status-pages/visitor.js';
import type { SubscriberDeliveriesRepository } from './subscriber-deliveries.repository.js';
import type { SubscribeInput } from './subscribers.schema.js';
import type { PageRef, Subscriber, SubscribersRepository } from './subscribers.repository.js';
import { subscribersCsv } from './subscribers-csv.js';
import type { SubscriptionLinks } from './subscription-links.js';
import { RefusedAddressError, type WebhookAddressGuard } from './webhook-addresses.js';

export interface SubscribablePage extends PageRef {
  serviceIds: string[];
}

export interface SubscribersDeps {
  subscribers: SubscribersRepository;
  deliveries: SubscriberDeliveriesRepository;
  /** The page by slug if this visitor may see it (status-pages); not found otherwise. */
  visiblePage(slug: string, visitor: Visitor): Promise<SubscribablePage>;
  access: OrganizationAccess;
  links: SubscriptionLinks;
  guard: WebhookAddressGuard;
  limits: { perAddress: RateLimiter | undefined; perEmail: RateLimiter | undefined };
  /** Without SMTP settings no confirmation could go out: e-mail subscriptions are refused, saying so. */
  emailEnabled: boolean;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  /** Runs the subscriber outbox after a commit. */
  wake(): void;
  clock: Clock;
}

export const EMAIL_ANSWER = 'Thanks. If the address can be subscribed, a confirmation mail is on its way: follow its link to start receiving updates.';
export const WEBHOOK_ANSWER = 'The webhook is subscribed: it receives a JSON POST for every incident and maintenance notice of this page.';

export function createSubscribersService(deps: SubscribersDeps) {
  const { subscribers, deliveries, access, links, guard, limits, clock } = deps;

  async function vetWebhook(url: string): Promise<void> {
    try {
      await guard.vet(new URL(url));
    } catch (err) {
      if (err instanceof RefusedAddressError) {
        throw validationFailed(`webhook_url: ${err.message} (a deployment may allow private ones with SUBSCRIBER_WEBHOOKS_ALLOW_PRIVATE=true)`, [{ path: 'webhook_url', message: err.message }]);
      }
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') throw validationFailed(`webhook_url: its host name does not resolve (${code})`, [{ path: 'webhook_url', message: 'does not resolve' }]);
      throw err;
    }
  }

  /** A page of the actor's organization whose subscribers the actor (admin or owner) may see. */
  async function managedPage(actor: Actor, pageId: string): Promise<PageRef> {
    const role = await access.roleIn(actor, actor.organizationId);
    if (ROLE_RANK[role] < ROLE_RANK.admin) throw new AppError('FORBIDDEN', `the ${role} role cannot see or remove subscribers (admins and owners can)`);
    const page = await subscribers.findPage(actor.organizationId, pageId);
    if (!page) throw notFound('status page');
    return page;
  }

  return {
    /** Answers the sentence for the visitor, the same whether or not the address was subscribed. */
    async subscribe(slug: string, visitor: Visitor, input: SubscribeInput): Promise<string> {
      await limits.perAddress?.consume(visitor.ip, 'too many subscription requests from your address; try again later');
      if (input.email !== undefined) {
        // The counters need no one's address in the clear.
        const key = createHash('sha256').update(input.email.toLowerCase()).digest('base64url');
        await limits.perEmail?.consume(key, 'too many subscription requests for this e-mail address; try again later');
        if (!deps.emailEnabled) throw validationFailed('this server sends no e-mail (it has no SMTP settings): subscribe a webhook instead');
      }
      const page = await deps.visiblePage(slug, visitor);
      const listed = new Set(page.serviceIds);
      const unknown = input.component_ids.find((id) => !listed.has(id));
      if (unknown) throw validationFailed(`component_ids: ${unknown} is not a service of this status page`, [{ path: 'component_ids', message: 'not a service of this page' }]);
      if (input.webhook_url !== undefined) await vetWebhook(input.webhook_url);

      const fields = { id: randomUUID(), organizationId: page.organizationId, statusPageId: page.id, componentIds: input.component_ids };
      await deps.transaction(async (tx) => {
        if (input.webhook_url !== undefined) return subscribers.addWebhook(tx, { ...fields, webhookUrl: input.webhook_url, at: clock.now() });
        const { id, confirmed } = await subscribers.addEmail(tx, { ...fields, email: input.email! });
        // A confirmed address hears nothing: its owner already gets the updates.
        if (!confirmed) await deliveries.enqueueConfirmation(tx, id, { id: page.id, slug: page.slug, title: page.title }, clock.now());
      });
      deps.wake();
      return input.webhook_url !== undefined ? WEBHOOK_ANSWER : EMAIL_ANSWER;
    },

    /** Confirms the subscriber a confirmation link names; answers its page. */
    async confirm(token: string): Promise<PageRef> {
      const page = await subscribers.confirm(links.verify('confirm', token), clock.now());
      if (!page) throw validationFailed('this subscription no longer exists: subscribe again');
      return page;
    },

    /** Removes the subscriber an unsubscribe link names; its page, or null when it was gone already. */
    async unsubscribe(token: string): Promise<PageRef | null> {
      return subscribers.remove(links.verify('unsubscribe', token));
    },

    async list(actor: Actor, pageId: string): Promise<Subscriber[]> {
      return subscribers.list((await managedPage(actor, pageId)).id);
    },

    async exportCsv(actor: Actor, pageId: string): Promise<{ filename: string; csv: string }> {
      const page = await managedPage(actor, pageId);
      return { filename: `subscribers-${page.slug}.csv`, csv: subscribersCsv(await subscribers.list(page.id)) };
    },

    async remove(actor: Actor, pageId: string, subscriberId: string): Promise<void> {
      const page = await managedPage(actor, pageId);
      if (!(await subscribers.removeFromPage(page.id, subscriberId))) throw notFound('subscriber');
    },
  };
}

export type SubscribersService = ReturnType<typeof createSubscribersService>;
