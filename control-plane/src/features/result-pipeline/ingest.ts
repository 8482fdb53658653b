// Turns a batch of agent results into stored rows, statuses, alerts and outbox rows in one
// transaction, with the stored rows appended to the rollup backlog (ADR 0007), then live
// events. Under load, batches that arrived while others were being stored share a transaction
// (group-commit.ts). The caller acknowledges the batch only after ingest() resolves, so nothing
// is lost; a replay stores nothing twice. Every step is a fixed number of statements for the
// whole transaction, however many batches, results, services or alerts it holds.
import { reportedStatus } from '../../../../shared/src/status.js';
import type { Clock } from '../../clock.js';
import { isDatabaseUnavailable, isMissingPartition } from '../../db/pg-errors.js';
import type { Tx } from '../../db/tx.js';
import type { Logger } from '../../logger.js';
import { toAlertJson } from '../alerting/alert.js';
import type { AlertEvaluator, AlertOutcome } from '../alerting/alert-evaluator.js';
import type { NotificationPlanner } from '../notifications/notification-planner.js';
import type { EventRelay } from '../../cluster/event-relay.js';
import type { EventBus, OrganizationEvent } from '../realtime/event-bus.js';
import type { IncomingResult, StoredResult } from './check-result.js';
import type { CheckResultsRepository, LockedService } from './check-results.repository.js';
import { createGroupCommit } from './group-commit.js';
import type { IngestObserver } from './observed-ingest.js';
import type { PartitionKeeper } from './partition-keeper.js';
import { encodeBacklog } from './rollup-deltas.js';
import { applyResult } from './service-status.js';

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
  results: CheckResultsRepository;
  partitions: Pick<PartitionKeeper, 'ensure' | 'forget' | 'retainedSince'>;
  evaluator: AlertEvaluator;
  planner: NotificationPlanner;
  events: EventBus;
  /** Hands the batch's events to the other replicas' clients, in the transaction. */
  relay: EventRelay;
  /** Whether a WebSocket client of this replica follows the organization. */
  follows(organizationId: string): boolean;
  /** Called after the commit when the batch planned deliveries, so they go out at once. */
  wakeDispatcher: () => void;
  /** Told of each committed transaction, with how many batches it stored. */
  observer: Pick<IngestObserver, 'transactionCommitted'>;
  clock: Clock;
  logger: Logger;
}

const MAX_MESSAGE_LENGTH = 1000;
/** An agent clock further ahead than this is wrong; its results are filed at arrival time. */
const MAX_CLOCK_AHEAD_MS = 86_400_000;

interface Ingested {
  /** The results stored, as they came in. */
  stored: IncomingResult[];
  events: OrganizationEvent[];
  planned: number;
}

const NOTHING: Ingested = { stored: [], events: [], planned: 0 };

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

export function createIngestService({ transaction, results, partitions, evaluator, planner, events, relay, follows, wakeDispatcher, observer, clock, logger }: IngestDeps) {
  // Live events are built only for an audience, here or on another replica: most batches have
  // none, and a batch's events allocate as much as the batch itself. Asked once per transaction.
  const audience = (): ((organizationId: string) => boolean) => {
    const elsewhere = relay.wanted();
    return (organizationId) => follows(organizationId) || elsewhere(organizationId);
  };
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
    const ingested = await transaction(async (tx): Promise<Ingested> => {
      const inserted = await results.insert(tx, incoming);
      if (inserted.length === 0) return NOTHING;
      // Only now are the services locked, so that batches about the same services insert in parallel.
      const services = await results.lockServices(tx, [...new Set(inserted.map((r) => r.serviceId))].sort());
      await results.discard(tx, inserted.filter((r) => !services.has(r.serviceId)));
      const kept = inserted.filter((r) => services.has(r.serviceId));
      const stored = inTimeOrder(kept).map((r) => withStatus(r, services.get(r.serviceId)!));
      if (stored.length === 0) return NOTHING;
      const states = new Map([...services].map(([id, s]) => [id, s.state]));
      await results.saveStates(tx, states, encodeBacklog(stored));
      const alerts = await evaluator.evaluate(tx, stored);
      const planned = await planner.plan(tx, alerts.notices);
      const news = eventsOf(stored, alerts, audience());
      await relay.relay(tx, news);
      return { stored: kept, events: news, planned };
    }).catch((err: unknown) => {
      // Another replica dropped a partition this one still counted on: look again next time.
      if (isMissingPartition(err)) partitions.forget();
      throw err;
    });
    observer.transactionCommitted(batches.length);
    for (const event of ingested.events) events.publish(event);
    if (ingested.planned > 0) wakeDispatcher();
    if (ingested.stored.length === incoming.length) return batches.map((batch) => batch.length);
    const stored = new Set(ingested.stored);
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

function inTimeOrder(results: IncomingResult[]): IncomingResult[] {
  return results.sort((a, b) => a.checkedAt.getTime() - b.checkedAt.getTime() || (a.id < b.id ? -1 : 1));
}

// Spelled out: the object spread here was the costliest line of ingest in a CPU profile.
function withStatus(r: IncomingResult, { state, alerting, hasDependents }: LockedService): StoredResult {
  const step = applyResult(state, r);
  return {
    id: r.id,
    serviceId: r.serviceId,
    status: r.status,
    responseTimeMs: r.responseTimeMs,
    message: r.message,
    location: r.location,
    agentId: r.agentId,
    checkedAt: r.checkedAt,
    adHoc: r.adHoc,
    details: r.details,
    organizationId: state.organizationId,
    serviceName: state.name,
    serviceEndpoint: state.endpoint,
    serviceAlerting: alerting,
    serviceHasDependents: hasDependents,
    current: step.current,
    previousStatus: step.previousStatus,
    serviceStatus: step.serviceStatus,
    failingLocations: step.failingLocations,
    redStreak: step.redStreak,
    failureStreak: step.failureStreak,
  };
}

/** The live events of a stored batch that someone hears: each result, each status it changed, each alert it opened or resolved. */
function eventsOf(stored: StoredResult[], alerts: AlertOutcome, heard: (organizationId: string) => boolean): OrganizationEvent[] {
  const events: OrganizationEvent[] = [];
  for (const r of stored) {
    if (!heard(r.organizationId)) continue;
    events.push({
      type: 'check_result',
      organizationId: r.organizationId,
      data: {
        id: r.id,
        service_id: r.serviceId,
        service_name: r.serviceName,
        status: r.status,
        previous_status: r.previousStatus,
        response_time_ms: r.responseTimeMs,
        message: r.message,
        location: r.location,
        checked_at: r.checkedAt.toISOString(),
      },
    });
    if (r.current && r.previousStatus !== r.serviceStatus) {
      events.push({
        type: 'service_status',
        organizationId: r.organizationId,
        data: { service_id: r.serviceId, service_name: r.serviceName, status: r.serviceStatus, previous_status: r.previousStatus, changed_at: r.checkedAt.toISOString() },
      });
    }
  }
  for (const alert of alerts.fired) if (heard(alert.organizationId)) events.push({ type: 'alert_fired', organizationId: alert.organizationId, data: toAlertJson(alert) });
  for (const alert of alerts.resolved) if (heard(alert.organizationId)) events.push({ type: 'alert_resolved', organizationId: alert.organizationId, data: toAlertJson(alert) });
  return events;
}
