// Alerts through the API (API.md "Alerts"): list, read, acknowledge and resolve, each change
// written with its notifications in one transaction and announced on the live feed.
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import { AppError, notFound } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { EscalationRepository } from '../escalation/escalation.repository.js';
import type { DeliveriesRepository, DeliveryView } from '../notifications/deliveries.repository.js';
import type { NotificationPlanner } from '../notifications/notification-planner.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { EventRelay } from '../../cluster/event-relay.js';
import type { EventBus, OrganizationEvent } from '../realtime/event-bus.js';
import { toAlertJson, type Alert, type AlertStatus } from './alert.js';
import type { AlertsRepository } from './alerts.repository.js';

export interface AlertsServiceDeps {
  alerts: AlertsRepository;
  deliveries: DeliveriesRepository;
  escalation: EscalationRepository;
  planner: NotificationPlanner;
  access: OrganizationAccess;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  events: EventBus;
  relay: EventRelay;
  wakeDispatcher: () => void;
  clock: Clock;
}

export interface AlertQuery {
  status: AlertStatus | 'active' | 'all';
  serviceId?: string;
  limit: number;
}

const STATUSES: Record<AlertQuery['status'], AlertStatus[]> = {
  active: ['firing', 'acknowledged'],
  all: ['firing', 'acknowledged', 'resolved'],
  firing: ['firing'],
  acknowledged: ['acknowledged'],
  resolved: ['resolved'],
};

export function createAlertsService(deps: AlertsServiceDeps) {
  const { alerts } = deps;

  async function change(actor: Actor, alertId: string, to: 'acknowledged' | 'resolved'): Promise<Alert> {
    const organizationId = await deps.access.resolveWritable(actor);
    const from: AlertStatus[] = to === 'acknowledged' ? ['firing'] : ['firing', 'acknowledged'];
    const changed = await deps.transaction(async (tx) => {
      const alert = await alerts.transition(tx, organizationId, alertId, from, to, actor.userId, deps.clock.now());
      if (!alert) return null;
      await deps.escalation.clearTimers(tx, [alert.id]);
      const event = to === 'acknowledged' ? 'alert_acknowledged' : 'alert_resolved';
      await deps.planner.plan(tx, [{ event, alert, ...(await alerts.noticeFacts(tx, alert)), targets: 'notified', storm: false }]);
      const announced: OrganizationEvent = { type: event, organizationId, data: toAlertJson(alert) };
      await deps.relay.relay(tx, [announced]);
      return { alert, announced };
    });
    if (changed) {
      deps.events.publish(changed.announced);
      deps.wakeDispatcher();
      return changed.alert;
    }
    // Nothing moved: a repeat is a no-op; acknowledging a resolved alert is a conflict.
    const current = await alerts.find(organizationId, alertId);
    if (!current) throw notFound('alert');
    if (to === 'acknowledged' && current.status === 'resolved') throw new AppError('CONFLICT', 'a resolved alert cannot be acknowledged');
    return current;
  }

  return {
    async list(actor: Actor, query: AlertQuery): Promise<Alert[]> {
      const organizationId = await deps.access.resolveReadable(actor);
      return alerts.list(organizationId, { statuses: STATUSES[query.status], serviceId: query.serviceId, limit: query.limit });
    },
    async get(actor: Actor, alertId: string): Promise<Alert> {
      const alert = await alerts.find(await deps.access.resolveReadable(actor), alertId);
      if (!alert) throw notFound('alert');
      return alert;
    },
    acknowledge: (actor: Actor, alertId: string) => change(actor, alertId, 'acknowledged'),
    resolve: (actor: Actor, alertId: string) => change(actor, alertId, 'resolved'),
    async deliveries(actor: Actor, alertId: string): Promise<DeliveryView[]> {
      const alert = await alerts.find(await deps.access.resolveReadable(actor), alertId);
      if (!alert) throw notFound('alert');
      return deps.deliveries.listForAlert(alert.id);
    },
  };
}

export type AlertsService = ReturnType<typeof createAlertsService>;
