// Delivers the subscriber outbox: a round claims due rows in batches (leased, so a crashed
// replica's work is taken up when the lease ends), sends a bounded number at once, records every
// outcome, and retries failures with exponential backoff. Rounds run when woken (something was
// enqueued) and when the next retry falls due (jobs/due-timer.ts), not on a short poll.
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { SendError } from '../notifications/senders/sender.js';
import type { RetryPolicy } from '../notifications/dispatcher.js';
import type { DueWork } from '../../jobs/due-timer.js';
import type { SubscriberDeliveriesRepository } from './subscriber-deliveries.repository.js';
import type { ClaimedSubscriberDelivery, SubscriberDeliveryOutcome } from './subscriber-delivery.js';
import type { SubscriberSender } from './subscriber-sender.js';

/** Longer than a send can take (10 s timeouts), so a lease outlives the attempt it covers. */
const LEASE_MS = 60_000;
const BATCH = 100;
/** Sends at once; a slow webhook holds one slot, not the round. */
const IN_FLIGHT = 16;

export interface SubscriberDispatchDeps {
  deliveries: SubscriberDeliveriesRepository;
  send: SubscriberSender;
  retry: RetryPolicy;
  clock: Clock;
  logger: Logger;
}

export function subscriberDispatch({ deliveries, send, retry, clock, logger }: SubscriberDispatchDeps): DueWork {
  async function attempt(d: ClaimedSubscriberDelivery): Promise<SubscriberDeliveryOutcome> {
    const at = clock.now();
    try {
      await send(d);
      return { id: d.id, at, retryAt: null };
    } catch (err) {
      const failure = err instanceof SendError ? err : new SendError(err instanceof Error ? err.message : String(err));
      const attempts = d.attempts + 1;
      const retryAt = failure.permanent || attempts >= retry.maxAttempts ? null : new Date(clock.now().getTime() + retry.baseDelayMs * 2 ** (attempts - 1));
      logger.warn({ deliveryId: d.id, subscriberId: d.subscriber.id, attempt: attempts, error: failure.message, retryAt }, 'subscriber delivery failed');
      return { id: d.id, at, error: failure.message, retryAt };
    }
  }

  /** Sends the batch, IN_FLIGHT at a time. */
  async function sendAll(batch: ClaimedSubscriberDelivery[]): Promise<SubscriberDeliveryOutcome[]> {
    const outcomes: SubscriberDeliveryOutcome[] = [];
    let next = 0;
    const worker = async () => {
      while (next < batch.length) outcomes.push(await attempt(batch[next++]!));
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, batch.length) }, worker));
    return outcomes;
  }

  return {
    async run() {
      let done = 0;
      for (;;) {
        const now = clock.now();
        const batch = await deliveries.claimDue(now, BATCH, new Date(now.getTime() + LEASE_MS));
        // The lease keeps the rows claimed until their outcomes are written.
        await deliveries.record(await sendAll(batch));
        done += batch.length;
        if (batch.length < BATCH) return done;
      }
    },
    nextDue: () => deliveries.nextDue(),
  };
}
