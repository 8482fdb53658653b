// Step 5 (realtime): the batch's live events for those who hear them, here or on another
// replica: each result, each status it changed, each alert it opened or resolved. Handed to
// the other replicas inside the transaction; published here after the commit.
import type { EventRelay } from '../../../cluster/event-relay.js';
import type { AlertOutcome } from '../../alerting/alert-evaluator.js';
import { toAlertJson } from '../../alerting/alert.js';
import type { StoredResult } from '../../checks/check-result.js';
import type { OrganizationEvent } from '../../realtime/event-bus.js';
import type { PipelineStep } from '../result-batch.js';

export function liveEvents(relay: EventRelay, follows: (organizationId: string) => boolean): PipelineStep {
  return async (tx, batch) => {
    // Built only for an audience: most batches have none, and their events allocate as much as the batch.
    const elsewhere = relay.wanted();
    batch.events = eventsOf(batch.stored, batch.alerts, (organizationId) => follows(organizationId) || elsewhere(organizationId));
    await relay.relay(tx, batch.events);
  };
}

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
        data: { service_id: r.serviceId, service_name: r.serviceName, status: r.serviceStatus, previous_status: r.previousStatus, changed_at: r.checkedAt.toISOString(), flapping: r.flapping },
      });
    }
  }
  for (const alert of alerts.fired) if (heard(alert.organizationId)) events.push({ type: 'alert_fired', organizationId: alert.organizationId, data: toAlertJson(alert) });
  for (const alert of alerts.resolved) if (heard(alert.organizationId)) events.push({ type: 'alert_resolved', organizationId: alert.organizationId, data: toAlertJson(alert) });
  return events;
}
