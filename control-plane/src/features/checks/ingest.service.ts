// Turns a batch of agent results into stored rows, service statuses and live events.
// The caller acknowledges the batch only after ingest() resolves, so nothing is lost.
import { statusOf, type ServiceStatus } from '../../../../shared/src/status.js';
import type { EventBus } from '../realtime/event-bus.js';
import type { CheckResultsRepository, IncomingResult, StoredResult } from './check-results.repository.js';

export interface AgentResult {
  id: string;
  serviceId: string;
  ok: boolean;
  responseTimeMs: number;
  message: string;
  checkedAt: Date;
  adHoc: boolean;
  details: Record<string, unknown>;
}

export interface ResultOrigin {
  agentId: string;
  location: string;
}

const MAX_MESSAGE_LENGTH = 1000;

export function createIngestService(results: CheckResultsRepository, events: EventBus) {
  return {
    /** Stores the batch; answers how many results were new (replays count zero). */
    async ingest(origin: ResultOrigin, batch: AgentResult[]): Promise<number> {
      const incoming = batch.map((r): IncomingResult => ({
        id: r.id,
        serviceId: r.serviceId,
        status: statusOf(r.ok, r.responseTimeMs),
        responseTimeMs: Math.max(0, Math.round(r.responseTimeMs * 10) / 10),
        message: r.message.slice(0, MAX_MESSAGE_LENGTH),
        location: origin.location,
        agentId: origin.agentId,
        checkedAt: r.checkedAt,
        adHoc: r.adHoc,
        details: r.details,
      }));
      const { stored, previous } = await results.ingest(incoming);
      publishEvents(events, stored, previous);
      return stored.length;
    },
  };
}

export type IngestService = ReturnType<typeof createIngestService>;

function publishEvents(events: EventBus, stored: StoredResult[], previous: Map<string, ServiceStatus | null>): void {
  // Walk each service's new results in time order so previous_status chains correctly.
  const running = new Map(previous);
  for (const r of stored) {
    const before = running.has(r.serviceId) ? running.get(r.serviceId)! : null;
    events.publish({
      type: 'check_result',
      organizationId: r.organizationId,
      data: {
        id: r.id,
        service_id: r.serviceId,
        service_name: r.serviceName,
        status: r.status,
        previous_status: before,
        response_time_ms: r.responseTimeMs,
        message: r.message,
        location: r.location,
        checked_at: r.checkedAt.toISOString(),
      },
    });
    if (previous.has(r.serviceId)) {
      if (before !== r.status) {
        events.publish({
          type: 'service_status',
          organizationId: r.organizationId,
          data: { service_id: r.serviceId, service_name: r.serviceName, status: r.status, previous_status: before, changed_at: r.checkedAt.toISOString() },
        });
      }
      running.set(r.serviceId, r.status);
    }
  }
}
