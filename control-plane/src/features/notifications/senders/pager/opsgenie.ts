// Opsgenie Alert API v2 (Authorization: GenieKey <api_key>): a firing alert is created with
// the alert id as alias, so that acknowledging and closing find it by alias. Limits: message
// 130, alias and entity 512, description 15000 characters.
import { randomUUID } from 'node:crypto';
import type { NotificationPayload } from '../../delivery.js';
import { postJson } from '../http-send.js';
import type { Sender } from '../sender.js';
import { truncate } from '../truncate.js';
import { alertLink } from '../alert-link.js';

const API_URL = { us: 'https://api.opsgenie.com', eu: 'https://api.eu.opsgenie.com' } as const;
const PRIORITY: Record<string, string> = { critical: 'P1', warning: 'P3', info: 'P5' };

export function opsgenieSender(publicUrl: string): Sender {
  return ({ config, payload }) => {
    const base = String(config.api_url ?? API_URL[config.region === 'eu' ? 'eu' : 'us']).replace(/\/+$/, '');
    const headers = { authorization: `GenieKey ${String(config.api_key)}` };
    const { alert } = payload;
    // A reminder or a flapping notice has the alert's alias: Opsgenie counts it on the open alert.
    if (!alert || payload.event === 'alert_fired' || payload.event === 'alert_reminder' || payload.event === 'alert_flapping') return postJson(`${base}/v2/alerts`, createBody(payload, publicUrl), headers);
    const action = payload.event === 'alert_acknowledged' ? 'acknowledge' : 'close';
    const note = payload.event === 'alert_acknowledged' ? 'Acknowledged in Outpost' : 'Resolved in Outpost';
    return postJson(`${base}/v2/alerts/${encodeURIComponent(alert.id)}/${action}?identifierType=alias`, { source: 'Outpost', note }, headers);
  };
}

function createBody({ alert, service, text, locations }: NotificationPayload, publicUrl: string) {
  if (!alert) {
    return { message: 'Outpost test notification', alias: `outpost-test-${randomUUID()}`, description: text, source: 'Outpost', priority: 'P5', tags: ['outpost', 'test'] };
  }
  const link = alertLink(publicUrl, alert);
  const details: Record<string, string> = { service: service?.name ?? alert.service_name, ...(alert.service_id ? { service_id: alert.service_id } : {}), severity: alert.severity, link };
  if (service?.endpoint) details.endpoint = service.endpoint;
  if (locations?.length) details.locations = locations.join(', ');
  return {
    message: truncate(alert.title, 130),
    alias: alert.id,
    description: truncate(`${alert.message}\n\n${link}`, 15000),
    source: 'Outpost',
    entity: truncate(service?.name ?? alert.service_name, 512),
    priority: PRIORITY[alert.severity] ?? 'P3',
    tags: ['outpost', alert.severity],
    details,
  };
}
