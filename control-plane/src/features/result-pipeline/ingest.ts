// Turns a batch of agent results into stored rows, statuses, alerts and outbox rows in one
// transaction, through the steps of the result pipeline (steps/, in the order below), then
// publishes its live events. Under load, batches that arrived while others were being stored
// share a transaction (group-commit.ts). The caller acknowledges the batch only after ingest()
// resolves, so nothing is lost; a replay stores nothing twice. Every step is a fixed number of
// statements for the whole transaction, however many batches, results, services or alerts it
// holds.
import { reportedStatus } from '../../../../shared/src/status.js';
import type { Clock } from '../../clock.js';
import { isDatabaseUnavailable, isMissingPartition } from '../../db/pg-errors.js';
import type { Tx } from '../../db/tx.js';
import type { Logger } from '../../logger.js';
import type { IncomingResult } from '../checks/check-result.js';
import { createGroupCommit } from '../checks/group-commit.js';
import type { PartitionKeeper } from '../checks/partition-keeper.js';
import type { EventBus } from '../realtime/event-bus.js';
import type { IngestObserver } from './observed-ingest.js';
import { newBatch, type PipelineStep } from './result-batch.js';

export interface AgentResult {
  id: string;
  serviceId: string;
  ok: boolean;
  /** Passed but degraded in the prober's judgement (YELLOW); absent means not. */
  degraded?: boolean;
  /** The agent judged the speed by the service's own threshold: `degraded` alone says YELLOW. */
  speedJudged?: boolean;
  responseTimeMs: number;
  message: string;
  checkedAt: Date;
  adHoc: boolean;
  details: Record<string, unknown>;
}

export interface ResultOrigin {
  agentId: string;
  location: string;
  /** An organization's own agent may only report on that organization's services. */
  organizationId: string | null;
}

export interface IngestDeps {
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  /** The steps a batch goes through in its transaction: store, evaluate, silence, plan, relay. */
  steps: readonly PipelineStep[];
  partitions: Pick<PartitionKeeper, 'ensure' | 'forget' | 'retainedSince'>;
  events: EventBus;
  /** Called after the commit when the batch planned deliveries, so they go out at once. */
  wakeDispatcher: () => void;
  /** Told after the commit when an alert the batch opened is to be reminded of. */
  remindersDue: (at: Date) => void;
  /** Told after a commit that stored results: they wait in the rollup backlog to be folded. */
  backlogAdded: () => void;
  /** Told of each committed transaction, with how many batches it stored. */
  observer: Pick<IngestObserver, 'transactionCommitted'>;
  clock: Clock;
  logger: Logger;
}

const MAX_MESSAGE_LENGTH = 1000;
/** An agent clock further ahead than this is wrong; its results are filed at arrival time. */
const MAX_CLOCK_AHEAD_MS = 86_400_000;

// Two transactions at once keep both PostgreSQL and this process busy (one builds its
// statements while the other's run); more would only queue on the pool and on the services'
// locks. A group holds one agent's batches first: they are about the same services, whose
// locks and states it then takes once, while other agents' groups, mostly about other
// services, run beside it instead of waiting for its locks. A group of fewer results than
// five full agent batches (agents send at most 100 results a batch) takes other agents'
// batches too, so that many agents with a batch or two each still share transactions. Past
// 4,000 results a group saves little and holds its services' locks longer.
const CONCURRENT_TRANSACTIONS = 2;
const MAX_GROUP_RESULTS = 4000;
const FILL_GROUP_RESULTS = 500;

export function createIngestService({ transaction, steps, partitions, events, wakeDispatcher, remindersDue, backlogAdded, observer, clock, logger }: IngestDeps) {
  const groups = createGroupCommit<IncomingResult[], number>({
    concurrency: CONCURRENT_TRANSACTIONS,
    maxGroupSize: MAX_GROUP_RESULTS,
    fillSize: FILL_GROUP_RESULTS,
    size: (batch) => batch.length,
    // admissible() stamps every result of a batch with its agent.
    key: (batch) => batch[0]!.agentId,
    commit: storeTogether,
    worthRetryingAlone: (err) => !isDatabaseUnavailable(err),
  });

  return {
    /** Stores the batch; answers how many results were new (replays count zero). */
    async ingest(origin: ResultOrigin, batch: AgentResult[]): Promise<number> {
      const incoming = admissible(origin, batch);
      if (incoming.length === 0) return 0;
      return groups.submit(incoming);
    },
    /** Batches waiting for a transaction while others are being stored. */
    waiting: groups.waiting,
  };

  /** Stores the batches in one transaction; answers, for each, how many of its results were new. */
  async function storeTogether(batches: IncomingResult[][]): Promise<number[]> {
    const incoming = batches.length === 1 ? batches[0]! : batches.flat();
    // Outside the transaction: creating a partition locks the whole table for a moment.
    await partitions.ensure(incoming.map((r) => r.checkedAt));
    const ingested = await transaction(async (tx) => {
      const batch = newBatch(incoming);
      for (const step of steps) {
        await step(tx, batch);
        if (batch.stored.length === 0) break;
      }
      return batch;
    }).catch((err: unknown) => {
      // Another replica dropped a partition this one still counted on: look again next time.
      if (isMissingPartition(err)) partitions.forget();
      throw err;
    });
    observer.transactionCommitted(batches.length);
    if (ingested.stored.length > 0) backlogAdded();
    for (const event of ingested.events) events.publish(event);
    if (ingested.planned > 0) wakeDispatcher();
    for (const alert of ingested.alerts.fired) if (alert.remindAt) remindersDue(alert.remindAt);
    if (ingested.kept.length === incoming.length) return batches.map((batch) => batch.length);
    const stored = new Set(ingested.kept);
    return batches.map((batch) => batch.filter((r) => stored.has(r)).length);
  }

  /**
   * The batch as it will be stored. Results older than retention would be dropped with their
   * partition at once, so they are not kept (an agent only holds such results after a
   * month-long outage); a clock far ahead is not believed.
   */
  function admissible(origin: ResultOrigin, batch: AgentResult[]): IncomingResult[] {
    const oldest = partitions.retainedSince();
    const latest = clock.now().getTime() + MAX_CLOCK_AHEAD_MS;
    const kept = batch.filter((r) => r.checkedAt >= oldest);
    if (kept.length < batch.length) {
      logger.warn({ agentId: origin.agentId, dropped: batch.length - kept.length, retainedSince: oldest.toISOString() }, 'results older than the retention period were not stored');
    }
    return kept.map((r) => ({
      id: r.id,
      serviceId: r.serviceId,
      status: reportedStatus(r.ok, r.responseTimeMs, r.degraded, r.speedJudged),
      responseTimeMs: Math.max(0, Math.round(r.responseTimeMs * 10) / 10),
      message: r.message.slice(0, MAX_MESSAGE_LENGTH),
      location: origin.location,
      agentId: origin.agentId,
      agentOrganizationId: origin.organizationId,
      checkedAt: r.checkedAt.getTime() > latest ? clock.now() : r.checkedAt,
      adHoc: r.adHoc,
      details: r.details,
    }));
  }
}

export type IngestService = ReturnType<typeof createIngestService>;
