import type { AlertJson } from '../../alerting/alert.js';

/** Where an alert is seen on the dashboard: its service, or the agents and locations pages for theirs. */
export function alertLink(publicUrl: string, alert: Pick<AlertJson, 'service_id' | 'kind' | 'location'>): string {
  if (alert.service_id) return `${publicUrl}/services/${alert.service_id}`;
  if (alert.kind === 'location_offline' && alert.location) return `${publicUrl}/locations/${encodeURIComponent(alert.location)}`;
  return `${publicUrl}/agents`;
}
