// In-process publish/subscribe of organization-scoped events (check results, status
// changes) for the WebSocket feed. Listeners must not throw; a failing one is isolated.
import type { ServiceStatus } from '../../../../shared/src/status.js';
import type { AlertJson } from '../alerting/alert.js';

export interface CheckResultEvent {
  type: 'check_result';
  organizationId: string;
  data: {
    id: string;
    service_id: string;
    service_name: string;
    status: ServiceStatus;
    previous_status: ServiceStatus | null;
    response_time_ms: number;
    message: string;
    location: string;
    checked_at: string;
  };
}

export interface ServiceStatusEvent {
  type: 'service_status';
  organizationId: string;
  data: {
    service_id: string;
    service_name: string;
    status: ServiceStatus;
    previous_status: ServiceStatus | null;
    changed_at: string;
    /** The service changes status too often to be told of each change (FLAP_CHANGES within FLAP_WINDOW_MINUTES). */
    flapping?: boolean;
  };
}

/** A service went without results for three intervals (or its every location went dark), or stopped being watched (paused). */
export interface ServiceStaleEvent {
  type: 'service_stale';
  organizationId: string;
  data: {
    service_id: string;
    service_name: string;
    stale: boolean;
    /** Its last result's time; null when it never had one. */
    last_result_at: string | null;
    changed_at: string;
  };
}

export interface AlertEvent {
  type: 'alert_fired' | 'alert_acknowledged' | 'alert_resolved';
  organizationId: string;
  data: AlertJson;
}

export type OrganizationEvent = CheckResultEvent | ServiceStatusEvent | ServiceStaleEvent | AlertEvent;
type Listener = (event: OrganizationEvent) => void;

export interface EventBus {
  publish(event: OrganizationEvent): void;
  subscribe(listener: Listener): () => void;
}

export function createEventBus(onListenerError: (err: unknown) => void): EventBus {
  const listeners = new Set<Listener>();
  return {
    publish(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (err) {
          onListenerError(err);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
