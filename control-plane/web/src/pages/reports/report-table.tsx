// The figures of an uptime report, one row per service, typed from the control plane's own
// schema (features/reports/reports.schema.ts); type-only, so nothing of the server is bundled.
import type { z } from 'zod';
import type { UptimeReportJson } from '../../../../src/features/reports/reports.schema';
import { formatMs, formatPercent } from '../../ui/format';
import { ListTable } from '../../ui/list-table';

export type UptimeReport = z.infer<typeof UptimeReportJson>;

const count = new Intl.NumberFormat();

export function ReportTable({ report }: { report: UptimeReport }) {
  if (report.services.length === 0) return <p className="empty">No service matches.</p>;
  return (
    <ListTable columns={['Service', 'Uptime', 'Checks', 'Failed', 'Downtime (min)', 'Mean response', 'p95 response', 'Incidents']}>
      {report.services.map((s) => (
        <tr key={s.service_id}>
          <td>{s.name}</td>
          <td>{formatPercent(s.uptime_percentage)}</td>
          <td>{count.format(s.total_checks)}</td>
          <td>{count.format(s.failed_checks)}</td>
          <td>{count.format(s.downtime_minutes)}</td>
          <td>{formatMs(s.mean_response_time_ms)}</td>
          <td>{formatMs(s.p95_response_time_ms)}</td>
          <td>{count.format(s.incidents)}</td>
        </tr>
      ))}
    </ListTable>
  );
}
