// Delivers the outbox: claims due deliveries, sends each through its channel's sender,
// records the attempt, and retries failures with exponential backoff (10 attempts over
// about an hour by default). Work left by a crash is picked up when its lease ends.
import type { Logger } from '../../logger.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Clock } from '../../clock.js';
import type { ChannelType } from './channels.schema.js';
import { SECRET_CONFIG_KEYS } from './channels.schema.js';
import type { ClaimedDelivery } from './delivery.js';
import type { DeliveriesRepository } from './deliveries.repository.js';
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
  pollIntervalMs?: number;
  /** Deliveries being sent at once. */
  maxInFlight?: number;
}

const LEASE_MS = 60_000;

export interface Dispatcher {
  start(): void;
  /** Run now: something was just enqueued. */
  wake(): void;
  stop(): Promise<void>;
}

export function createDispatcher({ deliveries, senders, secrets, clock, logger, retry = DEFAULT_RETRY, pollIntervalMs = 1_000, maxInFlight = 64 }: DispatcherDeps): Dispatcher {
  let timer: NodeJS.Timeout | undefined;
  let filling: Promise<void> | undefined;
  const sending = new Set<Promise<void>>();
  let again = false;
  let stopped = true;

  const openConfig = (config: Record<string, unknown>) => {
    const open = { ...config };
    for (const key of SECRET_CONFIG_KEYS) if (secrets.isSealed(open[key])) open[key] = secrets.open(open[key] as string);
    return open;
  };

  async function send(group: ClaimedDelivery[]): Promise<void> {
    const [first] = group;
    if (!first) return;
    const ids = group.map((d) => d.id);
    const at = clock.now();
    const t0 = performance.now();
    let statusCode: number | null = null;
    let failure: SendError | undefined;
    try {
      ({ statusCode } = await senders[first.channel.channelType]({
        config: openConfig(first.channel.config),
        payload: first.payload,
        digest: first.grouped ? group.map((d) => d.payload) : undefined,
      }));
    } catch (err) {
      failure = err instanceof SendError ? err : new SendError(err instanceof Error ? err.message : String(err));
    }
    const durationMs = Math.round(performance.now() - t0);
    if (!failure) return deliveries.recordSuccess(ids, { at, statusCode, error: null, durationMs });
    const attempt = first.attempts + 1;
    const retryAt = failure.permanent || attempt >= retry.maxAttempts ? null : new Date(clock.now().getTime() + retry.baseDelayMs * 2 ** (attempt - 1));
    await deliveries.recordFailure(ids, { at, statusCode: failure.statusCode, error: failure.message, durationMs }, retryAt);
    logger.warn({ deliveryIds: ids, channelId: first.channel.id, attempt, error: failure.message, retryAt }, 'notification delivery failed');
  }

  /** Claims due work while there is room, and starts sending it without waiting for it. */
  async function fill(): Promise<void> {
    while (!stopped && sending.size < maxInFlight) {
      const claimed = await deliveries.claimDue(clock.now(), maxInFlight - sending.size, LEASE_MS);
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
        // A slow or dead endpoint holds one slot, never the whole dispatcher.
        const sent: Promise<void> = send(group)
          .catch((err) => logger.error({ err }, 'recording a delivery failed'))
          .finally(() => {
            sending.delete(sent);
            tick();
          });
        sending.add(sent);
      }
    }
  }

  function schedule(delayMs: number): void {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(tick, delayMs);
  }

  function tick(): void {
    if (stopped) return;
    if (filling) {
      again = true;
      return;
    }
    filling = fill()
      .catch((err) => logger.error({ err }, 'the notification dispatcher failed a round'))
      .finally(() => {
        filling = undefined;
        const now = again;
        again = false;
        schedule(now ? 0 : pollIntervalMs);
      });
  }

  return {
    start() {
      stopped = false;
      schedule(0);
    },
    wake: tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await filling;
      await Promise.all([...sending]);
    },
  };
}
