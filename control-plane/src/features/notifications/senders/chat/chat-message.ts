// What every chat provider says, worked out once: the status, severity, title, service,
// locations, a colour and a link to the dashboard, for one event or a storm digest. Providers
// only lay it out in their own format.
import type { NotificationPayload } from '../../delivery.js';
import { digestText } from '../../message.js';
import type { SendRequest } from '../sender.js';
import { alertLink } from '../alert-link.js';

export type ChatStatus = 'FIRING' | 'ACKNOWLEDGED' | 'RESOLVED' | 'TEST';

export interface ChatMessage {
  status: ChatStatus;
  /** CRITICAL, WARNING or INFO; null for a test. */
  severity: string | null;
  /** "web is RED", "12 alerts opened in a short time" or the test's sentence. */
  title: string;
  /** The detail under the title: the alert's message, or the digest's list. */
  body: string;
  service: string | null;
  locations: string[];
  /** 0xRRGGBB: red firing, amber acknowledged, green resolved, grey test. */
  colour: number;
  link: string;
  linkLabel: string;
  /** The whole message as plain text (the fallback of rich formats, and text-only providers). */
  text: string;
  /** Higher is more urgent: 1 (info, test, resolved) to 5 (critical firing). */
  urgency: 1 | 2 | 3 | 4 | 5;
}

const STATUS: Record<NotificationPayload['event'], ChatStatus> = {
  alert_fired: 'FIRING',
  alert_acknowledged: 'ACKNOWLEDGED',
  alert_resolved: 'RESOLVED',
  // Still firing, or firing on and off: as urgent as the alert itself.
  alert_reminder: 'FIRING',
  alert_flapping: 'FIRING',
  test: 'TEST',
};

const FIRING_COLOUR: Record<string, number> = { critical: 0xd92d20, warning: 0xf79009, info: 0x2e90fa };
const COLOUR: Record<Exclude<ChatStatus, 'FIRING'>, number> = { ACKNOWLEDGED: 0xeaaa08, RESOLVED: 0x12b76a, TEST: 0x667085 };
const FIRING_URGENCY: Record<string, 4 | 5 | 3> = { critical: 5, warning: 4, info: 3 };

/** A channel template's text, when there is one, is the body and the plain text; the heading, facts and link stay. */
export function chatMessage({ payload, digest, rendered }: Pick<SendRequest, 'payload' | 'digest' | 'rendered'>, publicUrl: string): ChatMessage {
  if (digest) return digestMessage(digest, publicUrl);
  const message = defaultMessage(payload, publicUrl);
  return rendered?.text ? { ...message, body: rendered.text, text: rendered.text } : message;
}

function defaultMessage(payload: NotificationPayload, publicUrl: string): ChatMessage {
  const { alert, service } = payload;
  const status = STATUS[payload.event];
  if (!alert) {
    return { status, severity: null, title: 'Test notification', body: payload.text, service: null, locations: [], colour: COLOUR.TEST, link: publicUrl, linkLabel: 'Open Outpost', text: `${payload.text}\n${publicUrl}`, urgency: 1 };
  }
  const serviceName = service?.name ?? alert.service_name;
  const locations = payload.locations ?? [];
  const link = alertLink(publicUrl, alert);
  return {
    status,
    severity: alert.severity.toUpperCase(),
    title: alert.title,
    body: alert.message,
    service: serviceName,
    locations,
    colour: status === 'FIRING' ? (FIRING_COLOUR[alert.severity] ?? FIRING_COLOUR.critical!) : COLOUR[status],
    link,
    linkLabel: 'Open in Outpost',
    text: [`${payload.text}`, `Service: ${serviceName}${locations.length ? ` · Location: ${locations.join(', ')}` : ''}`, link].join('\n'),
    urgency: status === 'FIRING' ? (FIRING_URGENCY[alert.severity] ?? 5) : status === 'ACKNOWLEDGED' ? 2 : 1,
  };
}

function digestMessage(digest: NotificationPayload[], publicUrl: string): ChatMessage {
  const services = [...new Set(digest.map((p) => p.service?.name ?? p.alert?.service_name).filter((n): n is string => Boolean(n)))];
  const locations = [...new Set(digest.flatMap((p) => p.locations ?? []))];
  const severities = digest.map((p) => p.alert?.severity);
  const worst = (['critical', 'warning', 'info'] as const).find((s) => severities.includes(s)) ?? 'critical';
  const text = digestText(digest);
  const link = `${publicUrl}/alerts`;
  return {
    status: 'FIRING',
    severity: worst.toUpperCase(),
    title: `${digest.length} alerts opened in a short time`,
    body: text.slice(text.indexOf('\n') + 1),
    service: services.length > 5 ? `${services.slice(0, 5).join(', ')} and ${services.length - 5} more` : services.join(', ') || null,
    locations,
    colour: FIRING_COLOUR[worst]!,
    link,
    linkLabel: 'Open alerts in Outpost',
    text: `${text}\n${link}`,
    urgency: FIRING_URGENCY[worst]!,
  };
}

/** The heading line: "[FIRING] [CRITICAL] web is RED". */
export function headline(m: ChatMessage): string {
  return `[${m.status}]${m.severity ? ` [${m.severity}]` : ''} ${m.title}`;
}

/** Label and value pairs every card shows (Status, Severity, Service, Location). */
export function facts(m: ChatMessage): { label: string; value: string }[] {
  const list: { label: string; value: string }[] = [{ label: 'Status', value: m.status }];
  if (m.severity) list.push({ label: 'Severity', value: m.severity });
  if (m.service) list.push({ label: m.service.includes(', ') ? 'Services' : 'Service', value: m.service });
  if (m.locations.length) list.push({ label: m.locations.length > 1 ? 'Locations' : 'Location', value: m.locations.join(', ') });
  return list;
}

export const hex = (colour: number) => `#${colour.toString(16).padStart(6, '0')}`;
