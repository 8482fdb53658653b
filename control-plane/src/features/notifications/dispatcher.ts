// Delivers the outbox: claims due deliveries in batches, sends them concurrently (a bound per
// endpoint, so one slow or dead endpoint never holds the others, and one overall), records the
// attempts in batches, and retries failures with exponential backoff (10 attempts over about
// an hour by default). Work left by a crash is picked up when its lease ends. Between rounds it
// sleeps until the next delivery or retry is due (at most maxWaitMs, for work another replica
// enqueued), and is woken when a delivery is enqueued here.
import type { Logger } from '../../logger.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Clock } from '../../clock.js';
import type { ChannelType } from './channels.schema.js';
import { SECRET_CONFIG_KEYS } from '../../../../shared/src/channel-secrets.js';
import type { ClaimedDelivery } from './delivery.js';
import type { DeliveriesRepository, DeliveryOutcome } from './deliveries.repository.js';
import { SendError, type Sender } from './senders/sender.js';

export interface RetryPolicy {
  maxAttempts: number;
  /** Delay before the 2nd attempt; doubles after each failure. */
  baseDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 10, baseDelayMs: 5_000 };

export interface DispatcherDeps {
  deliveries: DeliveriesRepository;
  senders: Record<ChannelType, Sender>;
  secrets: SecretBox;
  clock: Clock;
  logger: Logger;
  retry?: RetryPolicy;
  /** The longest it sleeps when nothing wakes it: a delivery another replica enqueued is found by then. */
  maxWaitMs?: number;
  /** Deliveries being sent at once, over all endpoints. */
  maxInFlight?: number;
  /** Deliveries being sent at once to one channel (or person). */
  maxPerEndpoint?: number;
}

const LEASE_MS = 60_000;
/** Claimed deliveries waiting for a free slot of their endpoint, at most (all leased). */
const MAX_WAITING = 1_000;
const CLAIM_BATCH = 250;
/** After a failed round (the database away), the next is tried this soon. */
const AFTER_FAILURE_MS = 5_000;

export interface Dispatcher {
  start(): void;
  /** Run now: something was just enqueued. */
  wake(): void;
  stop(): Promise<void>;
}

export function createDispatcher({
  deliveries, senders, secrets, clock, logger, retry = DEFAULT_RETRY, maxWaitMs = 60_000, maxInFlight = 128, maxPerEndpoint = 16,
}: DispatcherDeps): Dispatcher {
  let timer: NodeJS.Timeout | undefined;
  /** When the timer fires, in the clock's time. */
  let wakeAt = Infinity;
  /** The earliest work that fell due during a round, which that round's look at the outbox may have missed. */
  let nudged = Infinity;
  let filling: Promise<void> | undefined;
  let again = false;
  let stopped = true;
  /** Claimed work per endpoint: a delivery, or a digest of deliveries sent as one. */
  const waiting = new Map<string, ClaimedDelivery[][]>();
  const activePerEndpoint = new Map<string, number>();
  let waitingCount = 0;
  const sending = new Set<Promise<void>>();
  // A retry is due at its time; the timer is moved once the attempt is recorded (before, the row is still leased).
  const recorder = createOutcomeRecorder(deliveries, logger, (outcomes) => {
    for (const { retryAt } of outcomes) if (retryAt) dueAt(retryAt.getTime());
  });

  const openConfig = (config: Record<string, unknown>) => {
    const open = { ...config };
    for (const key of SECRET_CONFIG_KEYS) if (secrets.isSealed(open[key])) open[key] = secrets.open(open[key] as string);
    return open;
  };

  async function send(group: ClaimedDelivery[]): Promise<DeliveryOutcome> {
    const first = group[0]!;
    const ids = group.map((d) => d.id);
    const at = clock.now();
    const t0 = performance.now();
    try {
      const { statusCode } = await senders[first.channel.channelType]({
        config: openConfig(first.channel.config),
        payload: first.payload,
        digest: first.grouped ? group.map((d) => d.payload) : undefined,
        channel: { id: first.channel.id, organizationId: first.channel.organizationId },
      });
      return { ids, attempt: { at, statusCode, error: null, durationMs: Math.round(performance.now() - t0) }, retryAt: null };
    } catch (err) {
      const failure = err instanceof SendError ? err : new SendError(err instanceof Error ? err.message : String(err));
      const attempt = first.attempts + 1;
      const retryAt = failure.permanent || attempt >= retry.maxAttempts ? null : new Date(clock.now().getTime() + retry.baseDelayMs * 2 ** (attempt - 1));
      logger.warn({ deliveryIds: ids, channelId: first.channel.id, attempt, error: failure.message, retryAt }, 'notification delivery failed');
      return { ids, attempt: { at, statusCode: failure.statusCode, error: failure.message, durationMs: Math.round(performance.now() - t0) }, retryAt, failed: true };
    }
  }

  /** Starts what the bounds allow, endpoint by endpoint. */
  function pump(): void {
    for (const [endpoint, queue] of waiting) {
      while (queue.length > 0 && sending.size < maxInFlight && (activePerEndpoint.get(endpoint) ?? 0) < maxPerEndpoint) {
        const group = queue.shift()!;
        waitingCount--;
        activePerEndpoint.set(endpoint, (activePerEndpoint.get(endpoint) ?? 0) + 1);
        const sent: Promise<void> = send(group)
          .then(recorder.record)
          .finally(() => {
            sending.delete(sent);
            activePerEndpoint.set(endpoint, activePerEndpoint.get(endpoint)! - 1);
            pump();
            if (waitingCount < MAX_WAITING / 2) tick();
          });
        sending.add(sent);
      }
      if (queue.length === 0) waiting.delete(endpoint);
    }
  }

  /** Claims due work while there is room to hold it. */
  async function fill(): Promise<void> {
    while (!stopped && waitingCount < MAX_WAITING) {
      const claimed = await deliveries.claimDue(clock.now(), Math.min(CLAIM_BATCH, MAX_WAITING - waitingCount), LEASE_MS);
      if (claimed.length === 0) return;
      const digests = new Set<string>();
      for (const d of claimed) {
        let group = [d];
        if (d.grouped) {
          if (digests.has(d.groupKey)) continue;
          digests.add(d.groupKey);
          const rest = await deliveries.claimGrouped(d.groupKey, clock.now(), LEASE_MS);
          group = [d, ...rest.filter((r) => r.id !== d.id)];
        }
        const queue = waiting.get(d.channel.id);
        if (queue) queue.push(group);
        else waiting.set(d.channel.id, [group]);
        waitingCount++;
      }
      pump();
      if (claimed.length < CLAIM_BATCH) return;
    }
  }

  function schedule(delayMs: number): void {
    clearTimeout(timer);
    if (stopped) return;
    wakeAt = clock.now().getTime() + delayMs;
    timer = setTimeout(tick, delayMs);
    // Waiting for work keeps no process alive on its own.
    timer.unref();
  }

  /** Work falls due at `at` (the clock's ms): wake by then. */
  function dueAt(at: number): void {
    if (filling) nudged = Math.min(nudged, at);
    else if (at < wakeAt) schedule(Math.max(0, at - clock.now().getTime()));
  }

  /** How long to sleep after a round: until the earliest pending delivery is due, at most maxWaitMs. */
  async function untilNextDue(): Promise<number> {
    const next = await deliveries.nextDue();
    return next ? Math.min(maxWaitMs, Math.max(0, next.getTime() - clock.now().getTime())) : maxWaitMs;
  }

  function tick(): void {
    if (stopped) return;
    if (filling) {
      again = true;
      return;
    }
    wakeAt = Infinity;
    filling = fill()
      .then(() => (again ? 0 : untilNextDue()))
      .catch((err) => {
        logger.error({ err }, 'the notification dispatcher failed a round');
        return Math.min(maxWaitMs, AFTER_FAILURE_MS);
      })
      .then((delayMs) => {
        filling = undefined;
        const now = again;
        again = false;
        const untilNudged = Math.max(0, nudged - clock.now().getTime());
        nudged = Infinity;
        schedule(now ? 0 : Math.min(delayMs, untilNudged));
      });
  }

  return {
    start() {
      stopped = false;
      schedule(0);
    },
    wake: tick,
    async stop() {
      // Claimed work not yet started stays leased; another replica, or the next start, sends it.
      stopped = true;
      clearTimeout(timer);
      waiting.clear();
      waitingCount = 0;
      await filling;
      await Promise.all([...sending]);
      await recorder.flush();
    },
  };
}

/** Records attempts as they end, many in one statement: a storm's thousand deliveries cost a few writes. */
function createOutcomeRecorder(deliveries: DeliveriesRepository, logger: Logger, recorded: (outcomes: DeliveryOutcome[]) => void) {
  let pending: DeliveryOutcome[] = [];
  let writing: Promise<void> = Promise.resolve();
  let scheduled = false;

  function write(): Promise<void> {
    scheduled = false;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return writing;
    // The lease keeps the deliveries claimed until their outcome is written.
    writing = writing
      .then(() => deliveries.recordOutcomes(batch))
      .then(() => recorded(batch))
      .catch((err) => logger.error({ err, deliveries: batch.length }, 'recording delivery attempts failed'));
    return writing;
  }

  return {
    record(outcome: DeliveryOutcome): void {
      pending.push(outcome);
      if (!scheduled) {
        scheduled = true;
        setImmediate(write);
      }
    },
    async flush(): Promise<void> {
      await write();
    },
  };
}
