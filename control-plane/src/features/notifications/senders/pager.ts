// Pager services take the events-v2 shape: the alert id is the dedup key, so trigger,
// acknowledge and resolve all land on one incident.
import type { NotificationPayload } from '../delivery.js';
import { httpSend } from './http-send.js';
import type { Sender } from './sender.js';

const ACTIONS: Record<NotificationPayload['event'], string> = {
  alert_fired: 'trigger',
  test: 'trigger',
  alert_acknowledged: 'acknowledge',
  alert_resolved: 'resolve',
};

export function pagerSender(eventsUrl: string): Sender {
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
    }
    return httpSend(eventsUrl, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  };
}
