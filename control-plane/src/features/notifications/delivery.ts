// What the outbox holds: one delivery of one event to one channel, and what a sender needs.
import type { AlertJson } from '../alerting/alert.js';
import type { Channel } from './channel.js';

export type NotificationEvent = 'alert_fired' | 'alert_acknowledged' | 'alert_resolved' | 'test';

export interface NotificationPayload {
  event: NotificationEvent;
  alert: AlertJson | null;
  service: { id: string; name: string; endpoint: string; status: string | null } | null;
  /** One human sentence, for chat, SMS and e-mail subjects. */
  text: string;
}

export interface NewDelivery {
  id: string;
  organizationId: string;
  channelId: string;
  alertId: string | null;
  payload: NotificationPayload;
  /** Held for a digest: part of an alert storm on a channel meant for people. */
  grouped: boolean;
  nextAttemptAt: Date;
}

export interface ClaimedDelivery {
  id: string;
  channel: Channel;
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
