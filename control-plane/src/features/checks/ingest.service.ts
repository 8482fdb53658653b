// Turns a batch of agent results into stored rows, statuses, alerts and outbox rows (one
// transaction), then live events. The caller acknowledges the batch only after ingest()
// resolves, so nothing is lost; a replay stores nothing twice.
import { statusOf } from '../../../../shared/src/status.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { toAlertJson } from '../alerting/alert.js';
import type { AlertEffects, AlertEvaluator } from '../alerting/alert-evaluator.js';
import type { EventBus } from '../realtime/event-bus.js';
import type { CheckResultsRepository, IncomingResult, StoredResult } from './check-results.repository.js';

export interface AgentResult {
  id: string;
  serviceId: string;
  ok: boolean;
  /** Passed but degraded in the prober's judgement (YELLOW); absent means not. */
  degraded?: boolean;
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
  results: CheckResultsRepository;
  clock: Clock;
  /** The oldest a result may be and still be kept (raw-result retention). */
  retainedSince: () => Date;
  logger: Logger;
  evaluator: AlertEvaluator;
  events: EventBus;
  /** Called when the batch queued notifications, so they go out at once. */
  wakeDispatcher: () => void;
}

const MAX_MESSAGE_LENGTH = 1000;
/** An agent clock further ahead than this is wrong; its results are filed at arrival time. */
const MAX_CLOCK_AHEAD_MS = 86_400_000;

export function createIngestService({ results, clock, retainedSince, logger, evaluator, events, wakeDispatcher }: IngestDeps) {
  /**
   * Results older than retention would be dropped with their partition at once, so they are
   * not stored (an agent only holds such results after a month-long outage).
   */
  function withinRetention(origin: ResultOrigin, batch: AgentResult[]): AgentResult[] {
    const oldest = retainedSince();
    const kept = batch.filter((r) => r.checkedAt >= oldest);
    if (kept.length < batch.length) {
      logger.warn({ agentId: origin.agentId, dropped: batch.length - kept.length, retainedSince: oldest.toISOString() }, 'results older than the retention period were not stored');
    }
    const latest = clock.now().getTime() + MAX_CLOCK_AHEAD_MS;
    return kept.map((r) => (r.checkedAt.getTime() > latest ? { ...r, checkedAt: clock.now() } : r));
  }

  return {
    /** Stores the batch; answers how many results were new (replays count zero). */
    async ingest(origin: ResultOrigin, batch: AgentResult[]): Promise<number> {
      const incoming = withinRetention(origin, batch).map((r): IncomingResult => ({
        id: r.id,
        serviceId: r.serviceId,
        status: statusOf(r.ok, r.responseTimeMs, r.degraded),
        responseTimeMs: Math.max(0, Math.round(r.responseTimeMs * 10) / 10),
        message: r.message.slice(0, MAX_MESSAGE_LENGTH),
        location: origin.location,
        agentId: origin.agentId,
        checkedAt: r.checkedAt,
        adHoc: r.adHoc,
        details: r.details,
      }));
      const { stored, outcome } = await results.ingest(incoming, origin.organizationId, (tx, rows) => evaluator.onResults(tx, rows));
      publish(events, stored, outcome);
      if (outcome && outcome.fired.length + outcome.resolved.length > 0) wakeDispatcher();
      return stored.length;
    },
  };
}

export type IngestService = ReturnType<typeof createIngestService>;

function publish(events: EventBus, stored: StoredResult[], effects: AlertEffects | undefined): void {
  for (const r of stored) {
    events.publish({
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
      events.publish({
        type: 'service_status',
        organizationId: r.organizationId,
        data: { service_id: r.serviceId, service_name: r.serviceName, status: r.serviceStatus, previous_status: r.previousStatus, changed_at: r.checkedAt.toISOString() },
      });
    }
  }
  for (const alert of effects?.fired ?? []) events.publish({ type: 'alert_fired', organizationId: alert.organizationId, data: toAlertJson(alert) });
  for (const alert of effects?.resolved ?? []) events.publish({ type: 'alert_resolved', organizationId: alert.organizationId, data: toAlertJson(alert) });
}
