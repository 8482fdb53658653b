// Answers of the service history endpoints, read only by the service pages.
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
