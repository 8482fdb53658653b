// Uptime reports over any range up to 400 days, from the rollups (never the raw results):
// per service uptime, checks, failures, downtime, mean and p95 response time, incidents.
//
// Downtime: in the recent part of the range (where minute rollups are kept), the minutes
// whose checks all failed; before it, each hour or day rollup adds its failed share of its
// length (3 failed checks of 60 in an hour: 3 minutes). p95 comes from the hour and day
// rollups' histograms (buckets about 19% wide, interpolated, never above the largest time
// seen), over whole hours at the range's ends.
import type { Clock } from '../../clock.js';
import { notFound } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import { HOUR_ROLLUP_DAYS } from '../checks/partition-keeper.js';
import { quantileFromHistogram } from '../checks/response-histogram.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import { reportRange, type ReportRange } from './report-range.js';
import { reportSpans } from './report-spans.js';
import type { UptimeReportQuery } from './reports.schema.js';
import type { ServiceSelection, UptimeReportRepository } from './uptime-report.repository.js';

export interface ServiceReport {
  serviceId: string;
  name: string;
  uptimePercentage: number | null;
  totalChecks: number;
  failedChecks: number;
  downtimeMinutes: number;
  meanResponseTimeMs: number | null;
  p95ResponseTimeMs: number | null;
  incidents: number;
}

export interface UptimeReport extends ReportRange {
  services: ServiceReport[];
}

export interface UptimeReportsDeps {
  reports: UptimeReportRepository;
  access: OrganizationAccess;
  /** Folds the rollup backlog, so the report counts every result acknowledged before it. */
  settle: () => Promise<void>;
  /** The oldest minute rollup kept (partition-keeper.ts). */
  minuteRollupsSince: () => Date;
  clock: Clock;
}

const DAY_MS = 86_400_000;
const percentage = (successful: number, total: number) => (total === 0 ? null : Math.round((successful / total) * 100_000) / 1000);
const rounded = (ms: number | null) => (ms === null ? null : Math.round(ms * 10) / 10);

export function createUptimeReportsService({ reports, access, settle, minuteRollupsSince, clock }: UptimeReportsDeps) {
  /** Minute precision needs the minute rows and the hour rows the down-minute count goes through. */
  const exactSince = () => {
    const hoursSince = Math.floor(clock.now().getTime() / DAY_MS) * DAY_MS - HOUR_ROLLUP_DAYS * DAY_MS;
    return new Date(Math.max(minuteRollupsSince().getTime(), hoursSince));
  };

  async function reportFor(organizationId: string, range: ReportRange, selection: ServiceSelection = {}): Promise<UptimeReport> {
    const services = await reports.services(organizationId, selection);
    if (selection.serviceIds && services.length < selection.serviceIds.length) throw notFound('service');
    const ids = services.map((s) => s.id);
    const spans = reportSpans(range, exactSince());
    await settle();
    const [totals, down, histograms, incidents] = await Promise.all([
      reports.totals(ids, spans.exact, spans.estimated),
      spans.minutes ? reports.downMinutes(ids, spans.minutes) : new Map<string, number>(),
      reports.histograms(ids, spans.histograms),
      reports.incidents(ids, range),
    ]);
    return {
      ...range,
      services: services.map((s) => {
        const t = totals.get(s.id);
        const total = t?.total ?? 0;
        const histogram = histograms.get(s.id);
        return {
          serviceId: s.id,
          name: s.name,
          uptimePercentage: percentage(t?.successful ?? 0, total),
          totalChecks: total,
          failedChecks: total - (t?.successful ?? 0),
          downtimeMinutes: Math.round((down.get(s.id) ?? 0) + (t?.estimatedDowntimeMinutes ?? 0)),
          meanResponseTimeMs: rounded(t && total > 0 ? t.responseTimeSumMs / total : null),
          p95ResponseTimeMs: rounded(histogram && total > 0 ? quantileFromHistogram(histogram, 0.95, t?.responseTimeMaxMs ?? null) : null),
          incidents: incidents.get(s.id) ?? 0,
        };
      }),
    };
  }

  return {
    reportFor,

    async uptime(actor: Actor, query: UptimeReportQuery): Promise<UptimeReport> {
      const organizationId = await access.resolveReadable(actor);
      return reportFor(organizationId, reportRange(query.from, query.to, clock.now()), { serviceIds: query.service_ids, tags: query.tags });
    },
  };
}

export type UptimeReportsService = ReturnType<typeof createUptimeReportsService>;
