import { z } from 'zod';
import { timestamp } from '../../http/validate.js';
import type { ReportSettings } from './report-settings.repository.js';
import type { UptimeReport } from './uptime-reports.service.js';

const MAX_SERVICE_IDS = 500;
const MAX_TAGS = 50;
export const MAX_RECIPIENTS = 20;

const dateOrTimestamp = (field: string) =>
  z.union([z.iso.date(), timestamp(field)], { message: `${field} must be an ISO 8601 timestamp or a date (YYYY-MM-DD)` });

/** `a,b,c` in a query string; empty items are dropped. */
const commaList = <T extends z.ZodType<unknown, string>>(item: T, what: string, max: number) =>
  z
    .string()
    .transform((v) => [...new Set(v.split(',').map((s) => s.trim()).filter(Boolean))])
    .pipe(z.array(item).min(1, `${what} must name at least one`).max(max, `${what} may name at most ${max}`));

export const UptimeReportQuery = z
  .strictObject({
    from: dateOrTimestamp('from').optional().meta({ description: 'Start (inclusive): a timestamp, or a date meaning its midnight UTC. Default: 30 days before `to`' }),
    to: dateOrTimestamp('to').optional().meta({ description: 'End (exclusive): a timestamp, or a date meaning the end of that day (UTC). Default: now. At most 400 days after `from`' }),
    service_ids: commaList(z.uuid({ message: 'each service id must be a UUID' }), 'service_ids', MAX_SERVICE_IDS)
      .optional()
      .meta({ description: 'Comma-separated service ids; a service of another organization is a 404' }),
    tags: commaList(z.string().max(100), 'tags', MAX_TAGS).optional().meta({ description: 'Comma-separated tags: the services with any of them' }),
    format: z.enum(['json', 'csv'], { message: 'format must be json or csv' }).default('json'),
  })
  .refine((q) => !(q.service_ids && q.tags), { message: 'give service_ids or tags, not both', path: ['tags'] });
export type UptimeReportQuery = z.infer<typeof UptimeReportQuery>;

const ServiceReportJson = z.object({
  service_id: z.uuid(),
  name: z.string(),
  uptime_percentage: z.number().nullable().meta({ description: 'GREEN and YELLOW results count as up; null without checks' }),
  total_checks: z.int(),
  failed_checks: z.int(),
  downtime_minutes: z.int().meta({
    description: 'Minutes whose checks all failed; before the minute rollups kept (about a month), estimated as the failed share of each hour or day',
  }),
  mean_response_time_ms: z.number().nullable(),
  p95_response_time_ms: z.number().nullable().meta({ description: 'From the hourly and daily response-time histograms (buckets about 19% wide, whole hours at the ends)' }),
  incidents: z.int().meta({ description: 'Alerts fired in the range, plus status page incidents started in it that name the service' }),
});

export const UptimeReportJson = z
  .object({ from: z.iso.datetime(), to: z.iso.datetime(), services: z.array(ServiceReportJson) })
  .meta({ id: 'UptimeReport' });

export function toUptimeReportJson(r: UptimeReport) {
  return {
    from: r.from.toISOString(),
    to: r.to.toISOString(),
    services: r.services.map((s) => ({
      service_id: s.serviceId,
      name: s.name,
      uptime_percentage: s.uptimePercentage,
      total_checks: s.totalChecks,
      failed_checks: s.failedChecks,
      downtime_minutes: s.downtimeMinutes,
      mean_response_time_ms: s.meanResponseTimeMs,
      p95_response_time_ms: s.p95ResponseTimeMs,
      incidents: s.incidents,
    })),
  };
}

const email = z
  .string({ message: 'each recipient must be a string' })
  .trim()
  .toLowerCase()
  .max(254, 'an e-mail address has at most 254 characters')
  .pipe(z.email({ message: 'each recipient must be an e-mail address' }));

export const UpdateReportSettingsInput = z.strictObject({
  monthly_email: z.strictObject({
    enabled: z.boolean({ message: 'enabled must be true or false' }).optional(),
    recipients: z
      .array(email, { message: 'recipients must be an array of e-mail addresses' })
      .max(MAX_RECIPIENTS, `at most ${MAX_RECIPIENTS} recipients`)
      .transform((list) => [...new Set(list)])
      .optional(),
  }),
});
export type UpdateReportSettingsInput = z.infer<typeof UpdateReportSettingsInput>;

export const ReportSettingsJson = z
  .object({
    monthly_email: z.object({
      enabled: z.boolean().meta({ description: "The previous month's report goes to the recipients at the start of each UTC month" }),
      recipients: z.array(z.string()),
    }),
  })
  .meta({ id: 'ReportSettings' });

export function toReportSettingsJson(s: ReportSettings) {
  return { monthly_email: { enabled: s.enabled, recipients: s.recipients } };
}
