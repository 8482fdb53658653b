// An uptime report as CSV: a header row, then one row per service.
import { csv } from '../../csv.js';
import type { UptimeReport } from './uptime-reports.service.js';

const HEADER = ['service_id', 'name', 'uptime_percentage', 'total_checks', 'failed_checks', 'downtime_minutes', 'mean_response_time_ms', 'p95_response_time_ms', 'incidents'];

export function reportCsv(report: UptimeReport): string {
  return csv(
    HEADER,
    report.services.map((s) => [s.serviceId, s.name, s.uptimePercentage, s.totalChecks, s.failedChecks, s.downtimeMinutes, s.meanResponseTimeMs, s.p95ResponseTimeMs, s.incidents]),
  );
}

/** uptime-report-2024-01-01-2024-02-01.csv */
export function reportFileName(report: Pick<UptimeReport, 'from' | 'to'>): string {
  const stamp = (d: Date) => (d.getTime() % 86_400_000 === 0 ? d.toISOString().slice(0, 10) : d.toISOString().slice(0, 19).replaceAll(':', ''));
  return `uptime-report-${stamp(report.from)}-${stamp(report.to)}.csv`;
}
