// Decides who hears about alert events and writes those deliveries to the outbox, inside the
// caller's transaction, for any number of events in a fixed number of statements. During an
// alert storm (more than 10 alerts of an organization opened within 30 s) channels read by
// people get one digest instead of a message each; webhooks and pagers still get every event.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Tx } from '../../db/tx.js';
import { toAlertJson } from '../alerting/alert.js';
import type { TeamsRepository } from '../teams/teams.repository.js';
import type { Channel } from './channel.js';
import type { ChannelsRepository } from './channels.repository.js';
import type { ChannelType } from './channels.schema.js';
import type { DeliveriesRepository } from './deliveries.repository.js';
import type { NewDelivery, Notice, NotificationPayload, NotificationTargets } from './delivery.js';
import { notificationText } from './message.js';

export const STORM_WINDOW_MS = 30_000;
export const STORM_THRESHOLD = 10;
/** How long storm deliveries wait so that the digest gathers the alerts opening meanwhile. */
export const DIGEST_HOLD_MS = 5_000;
const FOR_PEOPLE: readonly ChannelType[] = ['chat', 'sms', 'email'];

export interface NotificationPlanner {
  /** Writes one delivery per channel and per person (each e-mail address once) of every notice; answers how many. */
  plan(tx: Tx, notices: Notice[]): Promise<number>;
  enqueueTest(tx: Tx, channel: Channel): Promise<string>;
}

/** The start of the window in which opened alerts are counted for storm detection. */
export function stormWindowStart(now: Date): Date {
  return new Date(now.getTime() - STORM_WINDOW_MS);
}

export function isStorm(openedInWindow: number): boolean {
  return openedInWindow > STORM_THRESHOLD;
}

export interface PlannerDeps {
  deliveries: DeliveriesRepository;
  channels: ChannelsRepository;
  teams: TeamsRepository;
  clock: Clock;
}

export function createNotificationPlanner({ deliveries, channels, teams, clock }: PlannerDeps): NotificationPlanner {
  return {
    async plan(tx, notices) {
      if (notices.length === 0) return 0;
      const organizations = [...new Set(notices.map((n) => n.alert.organizationId))];
      const teamIds = [...new Set(notices.flatMap((n) => (n.targets === 'notified' ? [] : n.targets.teams)))];
      const enabled = await channels.enabledFor(tx, organizations);
      const members = teamIds.length > 0 ? await teams.memberEmails(tx, teamIds) : new Map<string, { organizationId: string; emails: string[] }>();
      const notified = await deliveries.notifiedTargets(tx, notices.flatMap((n) => (n.targets === 'notified' ? [n.alert.id] : [])));

      const now = clock.now();
      const rows: NewDelivery[] = [];
      for (const notice of notices) {
        const { alert } = notice;
        const targets: NotificationTargets = notice.targets === 'notified' ? notified.get(alert.id)! : notice.targets;
        const alertJson = toAlertJson(alert);
        const payload: NotificationPayload = { event: notice.event, alert: alertJson, service: notice.service, text: notificationText(notice.event, alertJson, now), ...(notice.locations ? { locations: notice.locations } : {}) };
        const delivery = (target: { channelId: string | null; recipient: string | null }, forPeople: boolean): NewDelivery => {
          const grouped = notice.storm && notice.event === 'alert_fired' && forPeople;
          return { id: randomUUID(), organizationId: alert.organizationId, ...target, alertId: alert.id, payload, grouped, nextAttemptAt: grouped ? new Date(now.getTime() + DIGEST_HOLD_MS) : now };
        };
        const wanted = targets.channels === 'all' ? null : new Set(targets.channels);
        for (const c of enabled) {
          if (c.organizationId === alert.organizationId && (!wanted || wanted.has(c.id))) rows.push(delivery({ channelId: c.id, recipient: null }, FOR_PEOPLE.includes(c.channelType)));
        }
        const people = new Set(targets.recipients);
        for (const teamId of targets.teams) {
          const team = members.get(teamId);
          if (team?.organizationId === alert.organizationId) for (const email of team.emails) people.add(email);
        }
        for (const to of [...people].sort()) rows.push(delivery({ channelId: null, recipient: to }, true));
      }
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
