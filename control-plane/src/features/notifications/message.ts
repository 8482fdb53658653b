// The words of notifications: one sentence per event, and a digest during alert storms.
import type { AlertJson } from '../alerting/alert.js';
import type { NotificationEvent, NotificationPayload } from './delivery.js';

const PREFIX: Record<NotificationEvent, string> = {
  alert_fired: 'FIRING',
  alert_acknowledged: 'ACKNOWLEDGED',
  alert_resolved: 'RESOLVED',
  alert_reminder: 'STILL FIRING',
  alert_flapping: 'FLAPPING',
  test: 'TEST',
};

/** `at`: when the notification is planned, for a reminder's "firing for". */
export function notificationText(event: NotificationEvent, alert: AlertJson | null, at?: Date): string {
  if (!alert) return `[${PREFIX[event]}] Test notification from Outpost: this channel works.`;
  const text = `[${PREFIX[event]}] [${alert.severity.toUpperCase()}] ${alert.title}: ${alert.message}`;
  if (event === 'alert_reminder' && at) return `${text} (firing for ${durationWords(at.getTime() - Date.parse(alert.fired_at))})`;
  if (event === 'alert_flapping') return `${text} (its status keeps changing: one notice instead of one per change until it settles)`;
  return text;
}

/** "2 d 3 h", "1 h 5 min", "4 min": the two largest units, for people. */
export function durationWords(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days > 0) return hours > 0 ? `${days} d ${hours} h` : `${days} d`;
  if (hours > 0) return rest > 0 ? `${hours} h ${rest} min` : `${hours} h`;
  return `${rest} min`;
}

export function digestText(payloads: NotificationPayload[]): string {
  const lines = payloads.slice(0, 20).map((p) => `- ${p.alert ? `${p.alert.title}: ${p.alert.message}` : p.text}`);
  const more = payloads.length > 20 ? `\n…and ${payloads.length - 20} more` : '';
  return `[FIRING] ${payloads.length} alerts opened in a short time:\n${lines.join('\n')}${more}`;
}
