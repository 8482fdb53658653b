// An uptime report as CSV (RFC 4180): a header row, then one row per service.
import type { UptimeReport } from './uptime-reports.service.js';

const HEADER = ['service_id', 'name', 'uptime_percentage', 'total_checks', 'failed_checks', 'downtime_minutes', 'mean_response_time_ms', 'p95_response_time_ms', 'incidents'];

/** Quoted when needed; a name a spreadsheet would run as a formula (=, +, -, @) is kept as text. */
function cell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function reportCsv(report: UptimeReport): string {
  const rows = report.services.map((s) =>
    [s.serviceId, s.name, s.uptimePercentage, s.totalChecks, s.failedChecks, s.downtimeMinutes, s.meanResponseTimeMs, s.p95ResponseTimeMs, s.incidents].map(cell).join(','),
  );
  return [HEADER.join(','), ...rows].map((line) => `${line}\r\n`).join('');
}

/** uptime-report-2024-01-01-2024-02-01.csv */
export function reportFileName(report: Pick<UptimeReport, 'from' | 'to'>): string {
  const stamp = (d: Date) => (d.getTime() % 86_400_000 === 0 ? d.toISOString().slice(0, 10) : d.toISOString().slice(0, 19).replaceAll(':', ''));
  return `uptime-report-${stamp(report.from)}-${stamp(report.to)}.csv`;
}
