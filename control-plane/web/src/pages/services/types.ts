// Answers of the service history and test endpoints, read only by the service pages.
import type { BulkAction, BulkOutcome } from '../../../../../shared/src/bulk-actions.js';
import type { Status } from '../../api/types';

export type Period = '24h' | '7d' | '30d' | '90d';

export interface Uptime {
  service_id: string;
  period: Period;
  from: string;
  to: string;
  uptime_percentage: number | null;
  total_checks: number;
  successful_checks: number;
}

export interface AgentSummary {
  id: string;
  name: string;
  location: string;
  status: 'online' | 'offline';
}

/** The answer of POST /services/test: one run of the form's check by one agent. */
export interface TestRunResult {
  status: Status;
  response_time_ms: number | null;
  message: string | null;
  details: Record<string, unknown>;
  location: string;
  agent_id: string | null;
  checked_at: string;
}

/** POST /services/bulk (control-plane/src/features/services/bulk-services.schema.ts). */

export interface BulkRequest {
  ids: string[];
  action: BulkAction;
  tags?: string[];
  locations?: string[];
}

export interface BulkAnswer {
  action: BulkAction;
  results: { id: string; outcome: BulkOutcome; reason?: string }[];
  counts: Record<BulkOutcome, number>;
}
