// Decides who hears about an alert event and writes those deliveries to the outbox, inside
// the caller's transaction. During an alert storm (more than 10 alerts of an organization
// opened within 30 s) channels read by people get one digest instead of a message each;
// webhooks and pagers still get every event.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import { toAlertJson, type Alert } from '../alerting/alert.js';
import type { Channel } from './channel.js';
import type { ChannelType } from './channels.schema.js';
import { fromRow as channelFromRow } from './channels.repository.js';
import type { DeliveriesRepository } from './deliveries.repository.js';
import type { NewDelivery, NotificationEvent, NotificationPayload, NotificationTargets } from './delivery.js';
import { notificationText } from './message.js';

export const STORM_WINDOW_MS = 30_000;
export const STORM_THRESHOLD = 10;
/** How long storm deliveries wait so that the digest gathers the alerts opening meanwhile. */
export const DIGEST_HOLD_MS = 5_000;
const FOR_PEOPLE: readonly ChannelType[] = ['chat', 'sms', 'email'];

export interface ServiceFacts {
  id: string;
  name: string;
  endpoint: string;
  status: string | null;
}

export interface NotificationPlanner {
  /** Writes one delivery per channel and per person (each e-mail address once). */
  enqueue(tx: Tx, event: NotificationEvent, alert: Alert, service: ServiceFacts | null, targets: NotificationTargets, storm: boolean): Promise<number>;
  enqueueTest(tx: Tx, channel: Channel): Promise<string>;
}

/** The start of the window in which opened alerts are counted for storm detection. */
export function stormWindowStart(now: Date): Date {
  return new Date(now.getTime() - STORM_WINDOW_MS);
}

export function isStorm(openedInWindow: number): boolean {
  return openedInWindow > STORM_THRESHOLD;
}

export function createNotificationPlanner(deliveries: DeliveriesRepository, clock: Clock): NotificationPlanner {
  async function enabledChannels(tx: Tx, organizationId: string, targets: string[] | 'all'): Promise<Channel[]> {
    if (targets !== 'all' && targets.length === 0) return [];
    const filter = targets === 'all' ? '' : ` and id in (${targets.map(() => '?').join(',')})`;
    const rows = await tx.execute<Record<string, unknown>[]>(
      `select * from notification_channels where organization_id = ? and enabled${filter}`,
      [organizationId, ...(targets === 'all' ? [] : targets)],
    );
    return rows.map(channelFromRow);
  }

  /** The e-mail addresses of the teams' members (members of the organization still) and of the recipients. */
  async function people(tx: Tx, organizationId: string, targets: NotificationTargets): Promise<string[]> {
    const addresses = new Set(targets.recipients);
    if (targets.teams.length > 0) {
      const rows = await tx.execute<{ email: string }[]>(
        `select distinct u.email from teams t
           join team_members tm on tm.team_id = t.id
           join memberships m on m.organization_id = t.organization_id and m.user_id = tm.user_id
           join users u on u.id = tm.user_id
          where t.organization_id = ? and t.id in (${targets.teams.map(() => '?').join(',')})`,
        [organizationId, ...targets.teams],
      );
      for (const r of rows) addresses.add(r.email);
    }
    return [...addresses].sort();
  }

  return {
    async enqueue(tx, event, alert, service, targets, storm) {
      const channels = await enabledChannels(tx, alert.organizationId, targets.channels);
      const recipients = await people(tx, alert.organizationId, targets);
      const alertJson = toAlertJson(alert);
      const payload: NotificationPayload = { event, alert: alertJson, service, text: notificationText(event, alertJson) };
      const now = clock.now();
      const delivery = (target: { channelId: string | null; recipient: string | null }, forPeople: boolean): NewDelivery => {
        const grouped = storm && event === 'alert_fired' && forPeople;
        return {
          id: randomUUID(),
          organizationId: alert.organizationId,
          ...target,
          alertId: alert.id,
          payload,
          grouped,
          nextAttemptAt: grouped ? new Date(now.getTime() + DIGEST_HOLD_MS) : now,
        };
      };
      const rows = [
        ...channels.map((c) => delivery({ channelId: c.id, recipient: null }, FOR_PEOPLE.includes(c.channelType))),
        ...recipients.map((to) => delivery({ channelId: null, recipient: to }, true)),
      ];
      await deliveries.enqueue(tx, rows);
      return rows.length;
    },

    async enqueueTest(tx, channel) {
      const id = randomUUID();
      await deliveries.enqueue(tx, [
        {
          id,
          organizationId: channel.organizationId,
          channelId: channel.id,
          recipient: null,
          alertId: null,
          payload: { event: 'test', alert: null, service: null, text: notificationText('test', null) },
          grouped: false,
          nextAttemptAt: clock.now(),
        },
      ]);
      return id;
    },
  };
}
