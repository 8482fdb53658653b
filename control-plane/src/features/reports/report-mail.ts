// The monthly report e-mail: a plain-text summary in the body, the CSV attached.
import type { OutgoingMail } from '../notifications/senders/smtp-transport.js';
import { reportCsv, reportFileName } from './report-csv.js';
import type { ServiceReport, UptimeReport } from './uptime-reports.service.js';

const monthName = new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric', timeZone: 'UTC' });

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const ms = (v: number | null) => (v === null ? 'n/a' : `${v} ms`);

function serviceLine(s: ServiceReport): string {
  if (s.totalChecks === 0) return `- ${s.name}: no checks`;
  return (
    `- ${s.name}: ${s.uptimePercentage}% uptime, ${plural(s.totalChecks, 'check')}, ${s.failedChecks} failed, ` +
    `${s.downtimeMinutes} min down, mean ${ms(s.meanResponseTimeMs)}, p95 ${ms(s.p95ResponseTimeMs)}, ${plural(s.incidents, 'incident')}`
  );
}

export function reportMail(organizationName: string, report: UptimeReport): OutgoingMail {
  const month = monthName.format(report.from);
  const total = report.services.reduce((n, s) => n + s.totalChecks, 0);
  const failed = report.services.reduce((n, s) => n + s.failedChecks, 0);
  const overall = total === 0 ? 'no checks' : `${Math.round(((total - failed) / total) * 100_000) / 1000}% of ${plural(total, 'check')} passed`;
  const text = [
    `Uptime report for ${organizationName}, ${month}`,
    `(${report.from.toISOString()} to ${report.to.toISOString()})`,
    '',
    `Overall: ${overall}.`,
    '',
    ...(report.services.length ? report.services.map(serviceLine) : ['No services.']),
    '',
    'The attached CSV has the figures of every service.',
    '',
  ].join('\n');
  return {
    subject: `[Outpost] Uptime report for ${organizationName}, ${month}`,
    text,
    attachments: [{ filename: reportFileName(report), content: reportCsv(report), contentType: 'text/csv; charset=utf-8' }],
  };
}
