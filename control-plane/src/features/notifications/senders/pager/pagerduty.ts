// PagerDuty Events API v2: the alert id is the dedup key, so trigger, acknowledge and resolve
// all land on one incident; a trigger links to the service in the dashboard.
import type { NotificationPayload } from '../../delivery.js';
import { postJson } from '../http-send.js';
import type { Sender } from '../sender.js';
import { alertLink } from '../alert-link.js';

const ACTIONS: Record<NotificationPayload['event'], string> = {
  alert_fired: 'trigger',
  test: 'trigger',
  alert_acknowledged: 'acknowledge',
  alert_resolved: 'resolve',
  // The same dedup key: PagerDuty adds it to the open incident.
  alert_reminder: 'trigger',
  alert_flapping: 'trigger',
};

export function pagerDutySender(eventsUrl: string, publicUrl: string): Sender {
  return ({ config, payload }) => {
    const alert = payload.alert;
    const action = ACTIONS[payload.event];
    const body: Record<string, unknown> = {
      routing_key: config.integration_key,
      event_action: action,
      dedup_key: alert?.id ?? `outpost-test-${Date.now()}`,
    };
    if (action === 'trigger') {
      body.payload = {
        summary: payload.text.slice(0, 1024),
        source: payload.service?.endpoint ?? 'outpost',
        severity: alert?.severity ?? 'info',
        timestamp: alert?.fired_at ?? new Date().toISOString(),
        component: payload.service?.name,
        custom_details: { alert, service: payload.service },
      };
      body.links = [{ href: alert ? alertLink(publicUrl, alert) : publicUrl, text: 'Open in Outpost' }];
    }
    return postJson(eventsUrl, body);
  };
}
