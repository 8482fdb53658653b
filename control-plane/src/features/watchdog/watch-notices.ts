// Who hears of what the watchdog opened and resolved: an opened alert its rule's first
// targets (every enabled channel for an agent's or location's alert no rule asks for), a
// resolved one those who heard it open. Notices of services go through silences afterwards.
import type { Tx } from '../../db/tx.js';
import type { Alert } from '../alerting/alert.js';
import type { AlertsRepository, NewAlert } from '../alerting/alerts.repository.js';
import type { FirstTargets } from '../alerting/first-targets.js';
import type { AlertRule } from '../alerting/rule.js';
import type { Notice } from '../notifications/delivery.js';
import { isStorm, stormWindowStart } from '../notifications/notification-planner.js';
import type { WatchedService } from './stale-services.js';

/** An alert the round wants open, with the rule it goes through and, for no_data, its service. */
export interface PlannedAlert {
  alert: NewAlert;
  rule: AlertRule | null;
  service: WatchedService | null;
}

export async function watchNotices(
  tx: Tx,
  { opened, planned, resolved, alerts, firstTargets, now }: {
    opened: Alert[];
    planned: PlannedAlert[];
    resolved: Alert[];
    alerts: Pick<AlertsRepository, 'countOpenedSince' | 'noticeFacts'>;
    firstTargets: FirstTargets;
    now: Date;
  },
): Promise<{ notices: Notice[]; remindAt: Date | null }> {
  const notices: Notice[] = [];
  let remindAt: Date | null = null;
  if (opened.length > 0) {
    const planOf = new Map(planned.map((p) => [p.alert.id, p]));
    const storms = await alerts.countOpenedSince(tx, [...new Set(opened.map((a) => a.organizationId))], stormWindowStart(now));
    const targets = await firstTargets(tx, opened.map((alert) => ({ alert, rule: planOf.get(alert.id)!.rule })), now);
    for (const alert of opened) {
      const { service } = planOf.get(alert.id)!;
      notices.push({
        event: 'alert_fired',
        alert,
        service: service && { id: service.id, name: service.name, endpoint: service.endpoint, status: service.status },
        targets: targets.get(alert.id)!,
        storm: isStorm(storms.get(alert.organizationId) ?? 0),
        locations: service ? [...service.locations] : [alert.location!],
      });
      if (alert.remindAt && (!remindAt || alert.remindAt < remindAt)) remindAt = alert.remindAt;
    }
  }
  for (const alert of resolved) {
    const facts = alert.serviceId ? await alerts.noticeFacts(tx, alert) : { service: null, locations: alert.location ? [alert.location] : undefined };
    notices.push({ event: 'alert_resolved', alert, service: facts.service, targets: 'notified', storm: false, ...(facts.locations ? { locations: facts.locations } : {}) });
  }
  return { notices, remindAt };
}
