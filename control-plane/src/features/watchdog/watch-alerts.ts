// The words and routing of the watchdog's alerts. A silent agent and a dark location are
// critical, and go through the organization's first enabled rule asking for them
// (`condition.agent_offline: true`), or to every enabled channel when none does; a service
// without data goes through each no_data rule that covers it, with that rule's severity.
import { randomUUID } from 'node:crypto';
import type { NewAlert } from '../alerting/alerts.repository.js';
import type { AlertRule } from '../alerting/rule.js';
import { durationWords } from '../notifications/message.js';
import type { Sighting } from './sighting.js';
import { staleAfterMs, type WatchedService } from './stale-services.js';

/** "2024-05-01 12:00:05 UTC": a time in a title, the same for every reader. */
export function utcWords(at: Date): string {
  return at.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/** The organization's rule for silent agents: its oldest enabled rule asking for them. */
export function agentOfflineRule(rules: readonly AlertRule[]): AlertRule | null {
  const asking = rules.filter((r) => r.enabled && r.condition.agent_offline === true);
  asking.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  return asking[0] ?? null;
}

function base(organizationId: string, rule: AlertRule | null, now: Date) {
  const repeatMinutes = rule?.condition.repeat_interval_minutes;
  return {
    id: randomUUID(),
    organizationId,
    alertRuleId: rule?.id ?? null,
    silencedBy: null,
    firedAt: now,
    remindAt: repeatMinutes ? new Date(now.getTime() + repeatMinutes * 60_000) : null,
  };
}

export function agentOfflineAlert(organizationId: string, agent: Sighting, rule: AlertRule | null, now: Date): NewAlert {
  const kind = agent.organizationId === null ? 'platform agent' : 'agent';
  return {
    ...base(organizationId, rule, now),
    kind: 'agent_offline',
    serviceId: null,
    serviceName: agent.name,
    agentId: agent.agentId,
    location: agent.location,
    severity: 'critical',
    title: `Agent ${agent.name} in ${agent.location} is offline`,
    message:
      `No connection from the ${kind} ${agent.name} (${agent.agentId}) in location ${agent.location} since ${utcWords(agent.lastSeenAt)}; ` +
      `its services there move to the location's other agents${rule ? ` (rule "${rule.name}")` : ''}.`,
  };
}

export function locationOfflineAlert(organizationId: string, location: string, lastSeenAt: Date, rule: AlertRule | null, now: Date): NewAlert {
  return {
    ...base(organizationId, rule, now),
    kind: 'location_offline',
    serviceId: null,
    serviceName: location,
    agentId: null,
    location,
    severity: 'critical',
    title: `Location ${location} is offline`,
    message:
      `Every agent checking this organization's services from ${location} is offline, the last one since ${utcWords(lastSeenAt)}: ` +
      `the services checked only from there get no results and are marked stale${rule ? ` (rule "${rule.name}")` : ''}.`,
  };
}

export function noDataAlert(service: WatchedService, rule: AlertRule, now: Date): NewAlert {
  const since = service.lastResultAt ?? service.createdAt;
  return {
    ...base(service.organizationId, rule, now),
    kind: 'no_data',
    serviceId: service.id,
    serviceName: service.name,
    agentId: null,
    location: null,
    severity: rule.severity,
    title: service.lastResultAt ? `${service.name} has no data since ${utcWords(service.lastResultAt)}` : `${service.name} has had no data since it was created`,
    message:
      `No result for ${durationWords(now.getTime() - since.getTime())}: it is checked every ${service.checkIntervalSeconds} s from ${service.locations.join(', ')} ` +
      `and stale after ${staleAfterMs(service.checkIntervalSeconds) / 1000} s without a result (rule "${rule.name}").`,
  };
}
