// The words of notifications: one sentence per event, and a digest during alert storms.
import type { AlertJson } from '../alerting/alert.js';
import type { NotificationEvent, NotificationPayload } from './delivery.js';

const PREFIX: Record<NotificationEvent, string> = {
  alert_fired: 'FIRING',
  alert_acknowledged: 'ACKNOWLEDGED',
  alert_resolved: 'RESOLVED',
  test: 'TEST',
};

export function notificationText(event: NotificationEvent, alert: AlertJson | null): string {
  if (!alert) return `[${PREFIX[event]}] Test notification from Outpost: this channel works.`;
  return `[${PREFIX[event]}] [${alert.severity.toUpperCase()}] ${alert.title}: ${alert.message}`;
}

export function digestText(payloads: NotificationPayload[]): string {
  const lines = payloads.slice(0, 20).map((p) => `- ${p.alert ? `${p.alert.title}: ${p.alert.message}` : p.text}`);
  const more = payloads.length > 20 ? `\n…and ${payloads.length - 20} more` : '';
  return `[FIRING] ${payloads.length} alerts opened in a short time:\n${lines.join('\n')}${more}`;
}
