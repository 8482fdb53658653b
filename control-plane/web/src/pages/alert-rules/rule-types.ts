// Alert rules as the API answers them (control-plane/src/features/alerting/rules.schema.ts).
import { matchersSummary } from '../silences/matchers';
import type { Matchers } from '../silences/silence-types';

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
  /** Instead of service_id: every service these matchers pick, including services made later. */
  selector?: Matchers | null;
  /** GREEN results in a row before its alert resolves itself (default 1). */
  recovery_threshold?: number;
  /** While its alert fires unacknowledged, its channels hear it again this often. */
  repeat_interval_minutes?: number | null;
  /** Fires when a covered service gets no result for three intervals. */
  no_data?: boolean;
  /** Its targets hear of silent agents and dark locations. */
  agent_offline?: boolean;
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

/**
 * The statuses a rule fires on, as the API reads them: a rule about missing data or offline
 * agents fires on statuses only when it names them (or a response time).
 */
export function statusesOf(c: RuleCondition): RuleStatus[] {
  if (c.statuses) return c.statuses;
  return (c.no_data || c.agent_offline) && typeof c.response_time_ms_above !== 'number' ? [] : DEFAULT_STATUSES;
}

/** 30 → "30 min", 120 → "2 h", 1440 → "1 d". */
export function formatMinutes(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440} d`;
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`;
}

/**
 * The condition in one line: "Status RED or YELLOW, 3 results in a row, at 2 or more locations;
 * or response time above 800 ms; or no data · resolves after 3 GREEN results · reminds every 1 h".
 */
export function conditionSummary(c: RuleCondition): string {
  const statuses = statusesOf(c);
  const triggers: string[] = [];
  if (statuses.length > 0) {
    const parts = [`Status ${statuses.join(' or ')}`];
    if (c.consecutive_failures && c.consecutive_failures > 1) parts.push(`${c.consecutive_failures} results in a row`);
    if (c.min_failing_locations && c.min_failing_locations > 1) parts.push(`at ${c.min_failing_locations} or more locations`);
    triggers.push(parts.join(', '));
  }
  if (typeof c.response_time_ms_above === 'number') triggers.push(`response time above ${c.response_time_ms_above} ms`);
  if (c.no_data) triggers.push('no data');
  if (c.agent_offline) triggers.push('an agent or location offline');
  const fires = triggers.join('; or ') || 'nothing';
  const extras: string[] = [];
  if (c.recovery_threshold && c.recovery_threshold > 1) extras.push(`resolves after ${c.recovery_threshold} GREEN results`);
  if (c.repeat_interval_minutes) extras.push(`reminds every ${formatMinutes(c.repeat_interval_minutes)}`);
  return [fires.charAt(0).toUpperCase() + fires.slice(1), ...extras].join(' · ');
}

/** Which services a rule covers, when it names no single one: its selector's matchers, or all. */
export function selectorSummary(c: RuleCondition, serviceName: (id: string) => string): string {
  return c.selector ? matchersSummary(c.selector, serviceName) : 'All services';
}
