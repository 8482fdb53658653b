// An alert rule as its form edits it (text for numbers, one Service choice for the scope) and
// the condition it sends. Keys of the condition the form does not know are kept as they were.
import { draftOfMatchers, EMPTY_MATCHERS, matchersOf, type MatcherDraft } from '../silences/matchers';
import { statusesOf, type AlertRule, type RuleCondition, type RuleStatus, type Severity } from './rule-types';

/** The Service choice that makes the rule cover the services its selector picks (never a UUID). */
export const BY_SELECTOR = 'selector';

export interface Draft {
  name: string;
  /** A service's id, BY_SELECTOR, or empty: all services. */
  serviceId: string;
  selector: MatcherDraft;
  severity: Severity;
  enabled: boolean;
  statuses: RuleStatus[];
  consecutiveFailures: string;
  responseTimeAbove: string;
  minFailingLocations: string;
  channelIds: string[];
  teamIds: string[];
  policyId: string;
  recoveryThreshold: string;
  repeatInterval: string;
  noData: boolean;
  agentOffline: boolean;
}

const KNOWN_KEYS = [
  'statuses',
  'consecutive_failures',
  'response_time_ms_above',
  'min_failing_locations',
  'escalation_policy_id',
  'channel_ids',
  'team_ids',
  'selector',
  'recovery_threshold',
  'repeat_interval_minutes',
  'no_data',
  'agent_offline',
];

const numberText = (n: number | null | undefined) => (typeof n === 'number' ? String(n) : '');
const numberOrNull = (text: string) => (text.trim() === '' ? null : Number(text));

export function draftOf(rule: AlertRule | undefined): Draft {
  const c = rule?.condition ?? {};
  return {
    name: rule?.name ?? '',
    serviceId: rule?.service_id ?? (c.selector ? BY_SELECTOR : ''),
    selector: c.selector ? draftOfMatchers(c.selector) : EMPTY_MATCHERS,
    severity: rule?.severity ?? 'critical',
    enabled: rule?.enabled ?? true,
    statuses: statusesOf(c),
    consecutiveFailures: numberText(c.consecutive_failures),
    responseTimeAbove: numberText(c.response_time_ms_above),
    minFailingLocations: numberText(c.min_failing_locations),
    channelIds: c.channel_ids ?? [],
    teamIds: c.team_ids ?? [],
    policyId: c.escalation_policy_id ?? '',
    recoveryThreshold: numberText(c.recovery_threshold),
    repeatInterval: numberText(c.repeat_interval_minutes),
    noData: c.no_data === true,
    agentOffline: c.agent_offline === true,
  };
}

function conditionOf(d: Draft, previous: RuleCondition | undefined): RuleCondition {
  const kept = Object.fromEntries(Object.entries(previous ?? {}).filter(([key]) => !KNOWN_KEYS.includes(key)));
  // No channel and no team: the escalation policy, else every enabled channel, is notified.
  const targeted = d.channelIds.length > 0 || d.teamIds.length > 0;
  // No status with no data or offline agents asked for: a rule about those alone.
  const statusless = d.statuses.length === 0 && (d.noData || d.agentOffline);
  return {
    ...kept,
    ...(statusless ? {} : { statuses: d.statuses }),
    ...(d.serviceId === BY_SELECTOR ? { selector: matchersOf(d.selector) } : {}),
    ...(d.recoveryThreshold.trim() ? { recovery_threshold: Number(d.recoveryThreshold) } : {}),
    repeat_interval_minutes: numberOrNull(d.repeatInterval),
    ...(d.noData ? { no_data: true } : {}),
    ...(d.agentOffline ? { agent_offline: true } : {}),
    ...(d.consecutiveFailures.trim() ? { consecutive_failures: Number(d.consecutiveFailures) } : {}),
    response_time_ms_above: numberOrNull(d.responseTimeAbove),
    min_failing_locations: numberOrNull(d.minFailingLocations),
    escalation_policy_id: d.policyId || null,
    channel_ids: targeted ? d.channelIds : null,
    team_ids: targeted ? d.teamIds : null,
  };
}

export const SHOWN_PATHS = ['name', 'service_id', 'severity', 'enabled', ...KNOWN_KEYS.map((k) => `condition.${k}`)];

/** The request body of the rule: a service's id, or none (its selector, or every service). */
export function ruleBodyOf(d: Draft, rule: AlertRule | undefined) {
  return {
    name: d.name,
    service_id: d.serviceId && d.serviceId !== BY_SELECTOR ? d.serviceId : null,
    severity: d.severity,
    enabled: d.enabled,
    condition: conditionOf(d, rule?.condition),
  };
}
