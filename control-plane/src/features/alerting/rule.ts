// Alert rules as the domain sees them, and the one decision that matters on the hot path:
// does this result make this rule fire?
import type { ServiceStatus } from '../../../../shared/src/status.js';

export type Severity = 'critical' | 'warning' | 'info';

export interface RuleCondition {
  statuses?: ServiceStatus[];
  consecutive_failures?: number;
  response_time_ms_above?: number | null;
  min_failing_locations?: number | null;
  escalation_policy_id?: string | null;
  channel_ids?: string[] | null;
  team_ids?: string[] | null;
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

export function ruleMatches(rule: AlertRule, result: EvaluatedResult): boolean {
  if (!rule.enabled || (rule.serviceId !== null && rule.serviceId !== result.serviceId)) return false;
  const c = rule.condition;
  const threshold = c.response_time_ms_above ?? null;
  const slow = threshold !== null && result.responseTimeMs > threshold;
  const statusMatches = (c.statuses ?? DEFAULT_STATUSES).includes(result.serviceStatus);
  if (!statusMatches && !slow) return false;
  if ((c.min_failing_locations ?? 1) > Math.max(result.failingLocations, slow ? 1 : 0)) return false;
  const needed = c.consecutive_failures ?? 1;
  if (needed > 1) {
    const onlyRed = (c.statuses ?? DEFAULT_STATUSES).every((s) => s === 'RED');
    const streak = onlyRed ? result.redStreak : result.failureStreak;
    if (streak < needed) return false;
  }
  return true;
}
