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
}

const BATCH = 50;
const LEASE_MS = 60_000;

export interface Dispatcher {
  start(): void;
  /** Run now: something was just enqueued. */
  wake(): void;
  stop(): Promise<void>;
}

export function createDispatcher({ deliveries, senders, secrets, clock, logger, retry = DEFAULT_RETRY, pollIntervalMs = 1_000 }: DispatcherDeps): Dispatcher {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
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
    const started = clock.now();
    const t0 = performance.now();
    try {
      const outcome = await senders[first.channel.channelType]({
        config: openConfig(first.channel.config),
        payload: first.payload,
        digest: first.grouped ? group.map((d) => d.payload) : undefined,
      });
      await deliveries.recordSuccess(ids, { at: started, statusCode: outcome.statusCode, error: null, durationMs: Math.round(performance.now() - t0) });
    } catch (err) {
      const e = err instanceof SendError ? err : new SendError(err instanceof Error ? err.message : String(err));
      const attempt = first.attempts + 1;
      const retryAt = e.permanent || attempt >= retry.maxAttempts ? null : new Date(clock.now().getTime() + retry.baseDelayMs * 2 ** (attempt - 1));
      await deliveries.recordFailure(ids, { at: started, statusCode: e.statusCode, error: e.message, durationMs: Math.round(performance.now() - t0) }, retryAt);
      logger.warn({ deliveryIds: ids, channelId: first.channel.id, attempt, error: e.message, retryAt }, 'notification delivery failed');
    }
  }

  async function runOnce(): Promise<boolean> {
    const claimed = await deliveries.claimDue(clock.now(), BATCH, LEASE_MS);
    const groups: ClaimedDelivery[][] = [];
    const digestChannels = new Set<string>();
    for (const d of claimed) {
      if (!d.grouped) groups.push([d]);
      else if (!digestChannels.has(d.channel.id)) {
        digestChannels.add(d.channel.id);
        const rest = await deliveries.claimGrouped(d.channel.id, clock.now(), LEASE_MS);
        groups.push([d, ...rest.filter((r) => r.id !== d.id)]);
      }
    }
    await Promise.all(groups.map(send));
    return claimed.length === BATCH;
  }

  function schedule(delayMs: number): void {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(tick, delayMs);
  }

  function tick(): void {
    if (running) {
      again = true;
      return;
    }
    running = runOnce()
      .then((more) => {
        again ||= more;
      })
      .catch((err) => logger.error({ err }, 'the notification dispatcher failed a round'))
      .finally(() => {
        running = undefined;
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
    wake() {
      if (stopped) return;
      if (running) again = true;
      else schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
