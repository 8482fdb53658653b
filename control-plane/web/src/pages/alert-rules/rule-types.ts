// Alert rules as the API answers them (control-plane/src/features/alerting/rules.schema.ts).
export type Severity = 'critical' | 'warning' | 'info';
export type RuleStatus = 'RED' | 'YELLOW' | 'GREEN';

export interface RuleCondition {
  statuses?: RuleStatus[];
  consecutive_failures?: number;
  response_time_ms_above?: number | null;
  min_failing_locations?: number | null;
  escalation_policy_id?: string | null;
  channel_ids?: string[] | null;
  team_ids?: string[] | null;
  /** The condition is extensible: keys this page does not know are kept as they are. */
  [extra: string]: unknown;
}

export interface AlertRule {
  id: string;
  organization_id: string;
  service_id: string | null;
  name: string;
  severity: Severity;
  condition: RuleCondition;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

export const SEVERITIES: Severity[] = ['critical', 'warning', 'info'];
/** What the API assumes when a rule names no statuses. */
export const DEFAULT_STATUSES: RuleStatus[] = ['RED', 'YELLOW'];

/** The condition in one line: "RED or YELLOW, 3 times in a row, at 2 locations; or slower than 800 ms". */
export function conditionSummary(c: RuleCondition): string {
  const statuses = (c.statuses ?? DEFAULT_STATUSES).join(' or ');
  const parts = [`Status ${statuses}`];
  if (c.consecutive_failures && c.consecutive_failures > 1) parts.push(`${c.consecutive_failures} results in a row`);
  if (c.min_failing_locations && c.min_failing_locations > 1) parts.push(`at ${c.min_failing_locations} or more locations`);
  const slow = typeof c.response_time_ms_above === 'number' ? `; or response time above ${c.response_time_ms_above} ms` : '';
  return parts.join(', ') + slow;
}
