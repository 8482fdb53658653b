// `outpost reports uptime`: the uptime report of a range, as a table, the API's JSON, or the
// API's CSV unchanged (for a spreadsheet or a customer).
import type { ApiClient } from '../api-client.js';
import { UsageError } from '../cli-error.js';
import { render, type Column } from '../output.js';
import { findServiceId } from './resources.js';

type Row = Record<string, any>;
type Print = (text: string) => void;

export type ReportFormat = 'table' | 'json' | 'csv';

/** Up to three decimals: 99.999 says more than 100 and less than 99.99912345. */
const percent = (value: number | null) => (value === null ? null : `${Number(value.toFixed(3))}%`);
const ms = (value: number | null) => (value === null ? null : Math.round(value));

const REPORT_COLUMNS: Column<Row>[] = [
  ['SERVICE', (s) => s.name],
  ['UPTIME', (s) => percent(s.uptime_percentage)],
  ['CHECKS', (s) => s.total_checks],
  ['FAILED', (s) => s.failed_checks],
  ['DOWNTIME MIN', (s) => s.downtime_minutes],
  ['MEAN MS', (s) => ms(s.mean_response_time_ms)],
  ['P95 MS', (s) => ms(s.p95_response_time_ms)],
  ['INCIDENTS', (s) => s.incidents],
];

export interface UptimeReportFlags {
  from?: string;
  to?: string;
  service?: string[];
  tag?: string[];
  output: ReportFormat;
}

export function reportCommands(api: ApiClient, print: Print) {
  return {
    async uptime(f: UptimeReportFlags) {
      if (f.service?.length && f.tag?.length) throw new UsageError('give --service or --tag, not both');
      const query = new URLSearchParams();
      if (f.from) query.set('from', f.from);
      if (f.to) query.set('to', f.to);
      if (f.service?.length) query.set('service_ids', (await Promise.all(f.service.map((ref) => findServiceId(api, ref)))).join(','));
      if (f.tag?.length) query.set('tags', f.tag.join(','));
      if (f.output === 'csv') {
        query.set('format', 'csv');
        // As the server wrote it, CRLF line ends included: print adds the final "\n".
        print((await api.getText(`/reports/uptime?${query}`)).replace(/\n$/, ''));
        return;
      }
      const report = await api.get<Row>(`/reports/uptime?${query}`);
      print(f.output === 'json' ? JSON.stringify(report, null, 2) : `Uptime from ${report.from} to ${report.to}\n\n${render(report.services, 'table', REPORT_COLUMNS)}`);
    },
  };
}
