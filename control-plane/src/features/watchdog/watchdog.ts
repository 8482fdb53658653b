// The watchdog: the product never goes blind quietly. Each round, in one transaction, it
// declares offline the agents silent for AGENT_OFFLINE_SECONDS and alerts their organizations
// (silent-agents.ts), marks stale the services without data and opens the no_data alerts
// their rules ask for (stale-services.ts), resolves what is over, and hands the notices to
// the planner and the live events to the WebSocket clients. Driven by a due timer: it wakes
// when the next agent falls silent or the next service goes stale, or when an agent leaves
// or returns, never on a short poll. Any number of replicas may run it: declaring an agent
// offline is claimed once, and alerts open under their partial unique indexes.
import type { Clock } from '../../clock.js';
import type { EventRelay } from '../../cluster/event-relay.js';
import type { Tx } from '../../db/tx.js';
import type { DueWork } from '../../jobs/due-timer.js';
import { toAlertJson, type Alert } from '../alerting/alert.js';
import type { AlertsRepository } from '../alerting/alerts.repository.js';
import type { FirstTargets } from '../alerting/first-targets.js';
import type { AlertRule } from '../alerting/rule.js';
import type { RuleCache } from '../alerting/rule-cache.js';
import type { RulesRepository } from '../alerting/rules.repository.js';
import { coversService, type MaintenanceRepository } from '../maintenance/maintenance.repository.js';
import type { NotificationPlanner } from '../notifications/notification-planner.js';
import type { EventBus, OrganizationEvent } from '../realtime/event-bus.js';
import type { NoticeSilencer } from '../silences/notice-silencer.js';
import type { AgentSightingsRepository } from './agent-sightings.repository.js';
import { placeKey, type PresenceRules } from './sighting.js';
import { dueOffline, judgeAgents } from './silent-agents.js';
import { judgeServices, type WatchedService } from './stale-services.js';
import { agentOfflineAlert, agentOfflineRule, locationOfflineAlert, noDataAlert } from './watch-alerts.js';
import { watchNotices, type PlannedAlert } from './watch-notices.js';
import type { WatchdogRepository } from './watchdog.repository.js';

/** A platform agent not seen for a week is forgotten, and its alerts resolved. */
export const FORGET_PLATFORM_AGENT_MS = 7 * 86_400_000;
/** How stale a connected agent's last_seen_at may grow between writes (it matters only once its replica is gone). */
const SEEN_REFRESH_MS = 30_000;

export interface WatchdogDeps {
  sightings: AgentSightingsRepository;
  repository: WatchdogRepository;
  alerts: Pick<AlertsRepository, 'resolveOfKind' | 'countOpenedSince' | 'noticeFacts'>;
  rules: Pick<RulesRepository, 'listEnabledFor'>;
  ruleCache: RuleCache;
  maintenance: Pick<MaintenanceRepository, 'activeFor'>;
  firstTargets: FirstTargets;
  silencer: NoticeSilencer;
  planner: NotificationPlanner;
  relay: EventRelay;
  events: EventBus;
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  wakeDispatcher: () => void;
  /** A reminder falls due at this time (the reminders' timer). */
  remindersDue: (at: Date) => void;
  clock: Clock;
  /** AGENT_OFFLINE_SECONDS in ms. */
  offlineMs: number;
  /** When this control plane started (see PresenceRules.notBefore). */
  startedAt: Date;
}

export function watchdog(deps: WatchdogDeps): DueWork {
  const presence: PresenceRules = { offlineMs: deps.offlineMs, notBefore: deps.startedAt };
  /**
   * The time the last round judged at. What fell due after it is the next work, even if that
   * moment passed while the round ran; what fell due before it was judged (an agent waiting for
   * a peer's verdict waits for the peer's time, which comes later).
   */
  let judgedAt: Date | null = null;

  async function round(tx: Tx, now: Date) {
    await deps.sightings.refreshLive(tx, now, SEEN_REFRESH_MS);
    await deps.sightings.forgetPlatform(tx, new Date(now.getTime() - FORGET_PLATFORM_AGENT_MS));
    const sightings = await deps.sightings.list(tx);
    const due = dueOffline(sightings, now, presence);
    const declaredIds = await deps.sightings.claimOffline(tx, due.map((s) => s.agentId), now, new Date(now.getTime() - deps.offlineMs));
    const declared = sightings.filter((s) => declaredIds.has(s.agentId));
    for (const s of declared) s.offlineAt = now;

    const open = await deps.repository.openWatchAlerts(tx);
    const locations = new Set([...sightings.filter((s) => s.offlineAt !== null).map((s) => s.location), ...open.flatMap((a) => (a.location ? [a.location] : []))]);
    const places = await deps.repository.places(tx, [...locations]);
    const agents = judgeAgents({ sightings, places, open, declared, now, rules: presence });
    const dark = places.filter((p) => agents.dark.has(placeKey(p.organizationId, p.location)));
    const watched = await deps.repository.watched(tx, now, deps.startedAt, dark);

    const organizations = [...new Set([...agents.open.map((p) => p.organizationId), ...watched.map((s) => s.organizationId)])];
    const rules = organizations.length > 0 ? await deps.ruleCache.forOrganizations(organizations, (missing) => deps.rules.listEnabledFor(tx, missing)) : new Map<string, AlertRule[]>();
    const watchedOrganizations = [...new Set(watched.map((s) => s.organizationId))];
    const windows = watchedOrganizations.length > 0 ? await deps.maintenance.activeFor(tx, watchedOrganizations, now) : new Map();
    const services = judgeServices({ services: watched, dark: agents.dark, rules, inMaintenance: (s) => coversService(windows.get(s.organizationId) ?? [], s.id), now });

    const marked = await deps.repository.markStale(tx, services.markStale);
    const unstaled = await deps.repository.unstaleUnchecked(tx);
    const resolved = [...(await deps.repository.resolve(tx, agents.resolve.map((a) => a.id), now)), ...(await deps.alerts.resolveOfKind(tx, unstaled.map((s) => s.id), 'no_data', now))];

    const planned: PlannedAlert[] = agents.open.map((plan) => {
      const rule = agentOfflineRule(rules.get(plan.organizationId) ?? []);
      const alert = plan.kind === 'agent_offline' ? agentOfflineAlert(plan.organizationId, plan.sighting, rule, now) : locationOfflineAlert(plan.organizationId, plan.location, plan.lastSeenAt, rule, now);
      return { alert, rule, service: null };
    });
    // A result stored meanwhile keeps a service fresh: no no_data alert for it.
    for (const { service, rule } of services.noData) if (service.stale || marked.has(service.id)) planned.push({ alert: noDataAlert(service, rule, now), rule, service });
    const opened = await deps.repository.open(tx, planned.map((p) => p.alert));

    const { notices, remindAt } = await watchNotices(tx, { opened, planned, resolved, alerts: deps.alerts, firstTargets: deps.firstTargets, now });
    const serviceMap = new Map<string, WatchedService>(watched.map((s) => [s.id, s]));
    const deliveries = await deps.planner.plan(tx, await deps.silencer(tx, notices, serviceMap));
    const events = liveEvents(watched.filter((s) => marked.has(s.id)), unstaled, opened, resolved, now);
    await deps.relay.relay(tx, events);
    return { done: declared.length + marked.size + opened.length + resolved.length, planned: deliveries, events, remindAt };
  }

  return {
    async run() {
      const now = deps.clock.now();
      const outcome = await deps.transaction((tx) => round(tx, now));
      judgedAt = now;
      if (outcome.planned > 0) deps.wakeDispatcher();
      if (outcome.remindAt) deps.remindersDue(outcome.remindAt);
      for (const event of outcome.events) deps.events.publish(event);
      return outcome.done;
    },
    async nextDue() {
      const after = judgedAt ?? deps.clock.now();
      const [silence, stale] = [await deps.sightings.nextSilence(after, deps.startedAt, deps.offlineMs), await deps.repository.nextStale(after, deps.startedAt)];
      const times = [silence, stale].filter((d): d is Date => d !== null).map((d) => d.getTime());
      return times.length > 0 ? new Date(Math.min(...times)) : null;
    },
  };
}

function liveEvents(
  marked: WatchedService[],
  unstaled: { id: string; organizationId: string; name: string; lastResultAt: Date | null }[],
  opened: Alert[],
  resolved: Alert[],
  now: Date,
): OrganizationEvent[] {
  const stale = (s: { id: string; organizationId: string; name: string; lastResultAt: Date | null }, value: boolean): OrganizationEvent => ({
    type: 'service_stale',
    organizationId: s.organizationId,
    data: { service_id: s.id, service_name: s.name, stale: value, last_result_at: s.lastResultAt?.toISOString() ?? null, changed_at: now.toISOString() },
  });
  return [
    ...marked.map((s) => stale(s, true)),
    ...unstaled.map((s) => stale(s, false)),
    ...opened.map((alert): OrganizationEvent => ({ type: 'alert_fired', organizationId: alert.organizationId, data: toAlertJson(alert) })),
    ...resolved.map((alert): OrganizationEvent => ({ type: 'alert_resolved', organizationId: alert.organizationId, data: toAlertJson(alert) })),
  ];
}
