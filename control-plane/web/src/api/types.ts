// Shapes of the API's answers that more than one page reads (API.md and the README).
export type Status = 'GREEN' | 'YELLOW' | 'RED';
export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export interface Organization {
  id: string;
  name: string;
  slug: string;
  plan: string;
  role: Role;
  created_at: string;
  updated_at: string;
}

export interface Service {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  environment: string | null;
  endpoint: string;
  check_type: string;
  check_interval_seconds: number;
  timeout_seconds: number;
  status: Status | null;
  tags: string[];
  locations: string[];
  options: Record<string, unknown>;
  last_checked_at: string | null;
  last_response_time_ms: number | null;
  /** No agent checks it and it opens no alert; `status` is the one it had when paused. */
  paused: boolean;
  /** Its status keeps changing: its alerts send one "flapping" notice instead of one per change. */
  flapping?: boolean;
  /** No result for three check intervals (or every location dark) while it should be checked: `status` is the last one known. */
  stale: boolean;
  /** When its last result was taken; null when it never had one. */
  last_result_at: string | null;
  /** Ids of the services it depends on. */
  depends_on: string[];
  /** Its dependencies that are RED now: its alerts are held while any is. */
  suppressed_by: { id: string; name: string }[];
  created_at: string;
  updated_at: string;
}

export interface LocationStatus {
  location: string;
  status: Status;
  checked_at: string;
  response_time_ms: number | null;
}

/** A row of GET /services/overview: what the overview shows of one service. */
export interface OverviewRow {
  id: string;
  name: string;
  check_type: string;
  endpoint: string;
  environment: string | null;
  tags: string[];
  locations: string[];
  status: Status | null;
  paused: boolean;
  flapping?: boolean;
  stale: boolean;
  last_result_at: string | null;
  last_checked_at: string | null;
  last_response_time_ms: number | null;
  location_statuses: LocationStatus[];
  /** Mean response time of each of the last 24 hours, oldest first; null: no checks. */
  trend: (number | null)[];
}

export interface Overview {
  total: number;
  services: OverviewRow[];
}

export interface ServicesSummary {
  total: number;
  statuses: Record<Status | 'PENDING', number>;
  tags: string[];
  environments: string[];
  locations: string[];
  check_types: string[];
}

export interface CheckResult {
  id: string;
  service_id: string;
  status: Status;
  response_time_ms: number | null;
  message: string | null;
  location: string;
  agent_id: string | null;
  checked_at: string;
  details: Record<string, unknown>;
}

export type AlertStatus = 'firing' | 'acknowledged' | 'resolved';

export interface Alert {
  id: string;
  organization_id: string;
  /** What it is about: a service's status, a service without data, a silent agent, a dark location. */
  kind: 'service' | 'no_data' | 'agent_offline' | 'location_offline';
  /** null for an agent's or a location's alert. */
  service_id: string | null;
  /** The service's name, or the agent's or location's. */
  service_name: string;
  alert_rule_id: string | null;
  agent_id: string | null;
  location: string | null;
  severity: 'critical' | 'warning' | 'info';
  title: string;
  message: string;
  status: AlertStatus;
  /** The silence keeping it quiet: open, but notifying nobody. */
  silenced_by: string | null;
  fired_at: string;
  last_fired_at: string;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
  updated_at: string;
}

export interface Member {
  user_id: string;
  email: string;
  full_name: string;
  role: Role;
  joined_at: string;
}

/** The WebSocket feed's `check_result` message (API.md). */
export interface CheckResultEvent {
  id: string;
  service_id: string;
  service_name: string;
  status: Status;
  previous_status: Status | null;
  response_time_ms: number | null;
  message: string | null;
  location: string;
  checked_at: string;
}

export interface ServiceStatusEvent {
  service_id: string;
  service_name: string;
  status: Status;
  previous_status: Status | null;
  changed_at: string;
  flapping?: boolean;
}

/** The feed's `service_stale` message: a service went without data, or is watched no more (paused). */
export interface ServiceStaleEvent {
  service_id: string;
  service_name: string;
  stale: boolean;
  last_result_at: string | null;
  changed_at: string;
}

export type LiveMessage =
  | { type: 'check_result'; data: CheckResultEvent }
  | { type: 'service_status'; data: ServiceStatusEvent }
  | { type: 'service_stale'; data: ServiceStaleEvent }
  | { type: 'alert_fired' | 'alert_acknowledged' | 'alert_resolved'; data: Alert };
