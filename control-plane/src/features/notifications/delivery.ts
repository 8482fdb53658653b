// What the outbox holds: one delivery of one event to one channel, and what a sender needs.
import type { Alert, AlertJson } from '../alerting/alert.js';
import type { Channel } from './channel.js';

/**
 * alert_reminder: an alert still firing unacknowledged, told again (repeat_interval_minutes);
 * alert_flapping: its service keeps changing status, told once instead of at every change.
 */
export type NotificationEvent = 'alert_fired' | 'alert_acknowledged' | 'alert_resolved' | 'alert_reminder' | 'alert_flapping' | 'test';

export interface ServiceFacts {
  id: string;
  name: string;
  endpoint: string;
  status: string | null;
}

export interface NotificationPayload {
  event: NotificationEvent;
  alert: AlertJson | null;
  service: ServiceFacts | null;
  /** One human sentence, for chat, SMS and e-mail subjects. */
  text: string;
  /** Where the check results behind the event came from, when known (not part of webhook bodies). */
  locations?: string[];
}

/** Who hears about an alert event. */
export interface NotificationTargets {
  /** Channel ids, or every enabled channel of the organization. */
  channels: string[] | 'all';
  /** Teams whose members each get an e-mail. */
  teams: string[];
  /** E-mail addresses (people who heard an earlier event of the alert). */
  recipients: string[];
}

export const EVERY_CHANNEL: NotificationTargets = { channels: 'all', teams: [], recipients: [] };

/** One alert event to tell people about; the planner turns notices into deliveries. */
export interface Notice {
  event: Exclude<NotificationEvent, 'test'>;
  alert: Alert;
  service: ServiceFacts | null;
  /** Whom to tell; 'notified': the channels and people that heard the alert open. */
  targets: NotificationTargets | 'notified';
  /** Part of an alert storm: channels read by people get a digest. */
  storm: boolean;
  /** Where the results that opened or resolved the alert came from. */
  locations?: string[];
}

export interface NewDelivery {
  id: string;
  organizationId: string;
  /** A delivery goes to a channel, or to one person's e-mail address. */
  channelId: string | null;
  recipient: string | null;
  alertId: string | null;
  payload: NotificationPayload;
  /** Held for a digest: part of an alert storm on a channel meant for people. */
  grouped: boolean;
  nextAttemptAt: Date;
}

export interface ClaimedDelivery {
  id: string;
  /** The channel, or for a person an e-mail channel to their address. */
  channel: Channel;
  /** Deliveries with the same key go out as one digest. */
  groupKey: string;
  payload: NotificationPayload;
  grouped: boolean;
  attempts: number;
}

export interface Attempt {
  at: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}
