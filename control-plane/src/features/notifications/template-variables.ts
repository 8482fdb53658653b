// What a message template can read (README "Message templates"): the event, the alert with how
// long it has been firing, the service, where the results came from, links to the dashboard
// and the organization. A test message, which has no alert, reads a sample one, so that
// "Send test" shows the template at work.
import { toAlertJson } from '../alerting/alert.js';
import type { NotificationEvent, NotificationPayload } from './delivery.js';
import { durationWords, notificationText } from './message.js';
import { alertLink } from './senders/alert-link.js';

export interface TemplateSettings {
  /** The dashboard's address (PUBLIC_URL). */
  publicUrl: string;
  now: Date;
  organization: { id: string; name: string } | null;
}

export function templateVariables(payload: NotificationPayload, { publicUrl, now, organization }: TemplateSettings): Record<string, unknown> {
  // A test message has no alert: it reads the sample one.
  const { alert: a, service, locations: from } = payload.alert ? { ...payload, alert: payload.alert } : sampleFacts('test', now);
  const locations = from?.length ? from : a.location ? [a.location] : [];
  const end = a.resolved_at ? new Date(a.resolved_at) : now;
  const firingSeconds = Math.max(0, Math.floor((end.getTime() - new Date(a.fired_at).getTime()) / 1000));
  return {
    // Any event name, including ones added after this was written.
    event: String(payload.event),
    text: payload.text,
    alert: { ...a, firing_seconds: firingSeconds, firing_for: firingFor(firingSeconds) },
    service: service ? { ...service } : null,
    location: locations[0] ?? null,
    locations,
    links: {
      dashboard: publicUrl,
      // Where the alert is seen, as the chat cards' button links it: its service, or the agents or location page.
      alert: alertLink(publicUrl, a),
      // The alerts page, on the tab that lists this alert.
      alerts: `${publicUrl}/alerts?status=${encodeURIComponent(a.status)}`,
      service: a.service_id ? `${publicUrl}/services/${a.service_id}` : null,
      location: a.location ? `${publicUrl}/locations/${encodeURIComponent(a.location)}` : null,
    },
    organization: organization ? { ...organization } : null,
  };
}

/** How long, as reminders say it ("1 h 5 min", "2 d 3 h"), with seconds under a minute ("45 s"). */
function firingFor(seconds: number): string {
  return seconds < 60 ? `${seconds} s` : durationWords(seconds * 1000);
}

const SAMPLE_IDS = {
  organization: '00000000-0000-4000-8000-000000000001',
  service: '00000000-0000-4000-8000-000000000002',
  rule: '00000000-0000-4000-8000-000000000003',
  alert: '00000000-0000-4000-8000-000000000004',
};
const SAMPLE_FIRING_MS = 12 * 60_000;

/** The payload of an event about an example service that failed 12 minutes ago; a test has no alert, as a real one. */
export function samplePayload(event: NotificationEvent, now: Date): NotificationPayload {
  if (event === 'test') return { event, alert: null, service: null, text: notificationText(event, null) };
  const { alert, service, locations } = sampleFacts(event, now);
  return { event, alert, service, text: notificationText(event, alert, now), locations };
}

function sampleFacts(event: NotificationEvent, now: Date) {
  const status = event === 'alert_resolved' ? 'resolved' : event === 'alert_acknowledged' ? 'acknowledged' : 'firing';
  const firedAt = new Date(now.getTime() - SAMPLE_FIRING_MS);
  const alert = toAlertJson({
    id: SAMPLE_IDS.alert,
    organizationId: SAMPLE_IDS.organization,
    kind: 'service',
    serviceId: SAMPLE_IDS.service,
    serviceName: 'checkout-api',
    alertRuleId: SAMPLE_IDS.rule,
    agentId: null,
    location: null,
    severity: 'critical',
    title: 'checkout-api is RED',
    message: 'HTTP 503 Service Unavailable from https://checkout.example.com/health',
    status,
    silencedBy: null,
    remindAt: null,
    firedAt,
    lastFiredAt: firedAt,
    acknowledgedAt: status === 'acknowledged' ? now : null,
    acknowledgedBy: null,
    resolvedAt: status === 'resolved' ? now : null,
    resolvedBy: null,
    updatedAt: now,
  });
  const service = { id: SAMPLE_IDS.service, name: 'checkout-api', endpoint: 'https://checkout.example.com/health', status: status === 'resolved' ? 'GREEN' : 'RED' };
  return { alert, service, locations: ['eu-west', 'us-east'] };
}
