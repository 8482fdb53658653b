// Alert rules as the domain sees them, and the one decision that matters on the hot path:
// does this result make this rule fire?
import type { ServiceStatus } from '../../../../shared/src/status.js';
import { matcherOf, type SelectableService, type ServiceSelector } from '../services/service-selector.js';

export type Severity = 'critical' | 'warning' | 'info';

export interface RuleCondition {
  statuses?: ServiceStatus[];
  consecutive_failures?: number;
  response_time_ms_above?: number | null;
  min_failing_locations?: number | null;
  escalation_policy_id?: string | null;
  channel_ids?: string[] | null;
  team_ids?: string[] | null;
  /** The services the rule covers, instead of one service_id (null service_id and no selector: all). */
  selector?: ServiceSelector | null;
  /** Consecutive GREEN results before the rule's alert resolves itself. */
  recovery_threshold?: number;
  /** While the alert fires unacknowledged, its channels hear of it again at this interval. */
  repeat_interval_minutes?: number | null;
  /** Fires when a covered service gets no result for three intervals (stale). */
  no_data?: boolean;
  /** Routes the alerts of the organization's silent agents and dark locations. */
  agent_offline?: boolean;
  [extra: string]: unknown;
}

export interface AlertRule {
  id: string;
  organizationId: string;
  serviceId: string | null;
  name: string;
  severity: Severity;
  condition: RuleCondition;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface EvaluatedResult {
  serviceId: string;
  /** The service, as a rule's selector reads it. */
  service: SelectableService;
  /** The service's status after the result (several locations decide it together). */
  serviceStatus: ServiceStatus;
  /** Locations of the service whose latest result is RED or YELLOW. */
  failingLocations: number;
  responseTimeMs: number;
  /** Consecutive RED results up to and including this one. */
  redStreak: number;
  /** Consecutive non-GREEN results up to and including this one. */
  failureStreak: number;
}

const DEFAULT_STATUSES: readonly ServiceStatus[] = ['RED', 'YELLOW'];
const NO_STATUSES: readonly ServiceStatus[] = [];

/**
 * The statuses a rule fires on. A rule asking for missing data or silent agents fires on
 * statuses only when it names them (or a response time): `{"no_data": true}` alone is a
 * rule about missing data, not also about every RED.
 */
export function statusesOf(c: RuleCondition): readonly ServiceStatus[] {
  if (c.statuses) return c.statuses;
  return (c.no_data || c.agent_offline) && c.response_time_ms_above == null ? NO_STATUSES : DEFAULT_STATUSES;
}

/** Whether the rule covers the service: its service_id, its selector, or every service. */
export function ruleCovers(rule: AlertRule, service: SelectableService): boolean {
  if (rule.serviceId !== null) return rule.serviceId === service.id;
  const selector = rule.condition.selector;
  return !selector || matcherOf(selector)(service);
}

export function ruleMatches(rule: AlertRule, result: EvaluatedResult): boolean {
  if (!rule.enabled) return false;
  const c = rule.condition;
  const statuses = statusesOf(c);
  const threshold = c.response_time_ms_above ?? null;
  const slow = threshold !== null && result.responseTimeMs > threshold;
  const statusMatches = statuses.includes(result.serviceStatus);
  if (!statusMatches && !slow) return false;
  // After the status: most results are GREEN and most rules stop above, before any selector runs.
  if (!ruleCovers(rule, result.service)) return false;
  if ((c.min_failing_locations ?? 1) > Math.max(result.failingLocations, slow ? 1 : 0)) return false;
  const needed = c.consecutive_failures ?? 1;
  if (needed > 1) {
    const onlyRed = statuses.every((s) => s === 'RED');
    const streak = onlyRed ? result.redStreak : result.failureStreak;
    if (streak < needed) return false;
  }
  return true;
}
