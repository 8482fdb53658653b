import { z } from 'zod';
import { timestamp } from '../../http/validate.js';
import type { CheckLogEntry } from './check-history.repository.js';

export const PERIODS = { '24h': 86_400, '7d': 7 * 86_400, '30d': 30 * 86_400, '90d': 90 * 86_400 } as const;
export const BUCKETS = { '1m': 60, '5m': 300, '1h': 3600, '1d': 86_400 } as const;
export type Period = keyof typeof PERIODS;
export type Bucket = keyof typeof BUCKETS;

/** A chart never needs more points than this; smaller buckets over long periods are refused. */
export const MAX_POINTS = 10_080;

const period = z.enum(Object.keys(PERIODS) as [Period, ...Period[]], { message: 'period must be one of 24h, 7d, 30d, 90d' });

export const CheckLogQuery = z.strictObject({
  limit: z.coerce
    .number({ message: 'limit must be an integer' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(1000, 'limit must be at most 1000')
    .default(100),
  before: timestamp('before').optional(),
  location: z.string().min(1).max(63).optional(),
});
export type CheckLogQuery = z.infer<typeof CheckLogQuery>;

export const UptimeQuery = z.strictObject({ period: period.default('24h') });
export type UptimeQuery = z.infer<typeof UptimeQuery>;

export const OverviewQuery = z.strictObject({
  period: period.default('24h'),
  org: z.string().min(1).max(100).optional(),
});
export type OverviewQuery = z.infer<typeof OverviewQuery>;

export const MetricsQuery = z.strictObject({
  period: period.default('24h'),
  bucket: z.enum(Object.keys(BUCKETS) as [Bucket, ...Bucket[]], { message: 'bucket must be one of 1m, 5m, 1h, 1d' }).optional(),
});
export type MetricsQuery = z.infer<typeof MetricsQuery>;

export function toCheckJson(c: CheckLogEntry) {
  return {
    id: c.id,
    service_id: c.serviceId,
    status: c.status,
    response_time_ms: c.responseTimeMs,
    message: c.message,
    location: c.location,
    agent_id: c.agentId,
    checked_at: c.checkedAt.toISOString(),
    details: c.details,
  };
}

// Answers (API.md "Services": checks, uptime, metrics).
const resultStatus = z.enum(['GREEN', 'YELLOW', 'RED']);
const percentage = z.number().nullable().meta({ description: 'null when there were no checks' });
const periodOut = z.enum(Object.keys(PERIODS) as [Period, ...Period[]]);

export const CheckJson = z
  .object({
    id: z.string(),
    service_id: z.uuid(),
    status: resultStatus,
    response_time_ms: z.number().nullable(),
    message: z.string().nullable(),
    location: z.string(),
    agent_id: z.string().nullable(),
    checked_at: z.iso.datetime(),
    details: z.record(z.string(), z.unknown()).meta({ description: 'Timings (dns_ms, connect_ms, tls_ms, ttfb_ms), status_code, certificate expiry, where the check type has them' }),
  })
  .meta({ id: 'CheckResult' });

export const UptimeJson = z
  .object({
    service_id: z.uuid(),
    period: periodOut,
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    uptime_percentage: percentage,
    total_checks: z.int(),
    successful_checks: z.int(),
  })
  .meta({ id: 'Uptime' });

export const MetricsJson = z
  .object({
    service_id: z.uuid(),
    period: periodOut,
    bucket: z.enum(Object.keys(BUCKETS) as [Bucket, ...Bucket[]]),
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    total_checks: z.int(),
    successful_checks: z.int(),
    uptime_percentage: percentage,
    avg_response_time_ms: z.number().nullable(),
    p95_response_time_ms: z.number().nullable(),
    points: z.array(
      z.object({
        timestamp: z.iso.datetime(),
        total_checks: z.int(),
        successful_checks: z.int(),
        uptime_percentage: percentage,
        avg_response_time_ms: z.number().nullable(),
        max_response_time_ms: z.number().nullable(),
      }),
    ),
  })
  .meta({ id: 'ServiceMetrics' });

export const MetricsOverviewJson = z
  .object({
    period: periodOut,
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    total_checks: z.int(),
    successful_checks: z.int(),
    uptime_percentage: percentage,
    services: z.array(
      z.object({
        service_id: z.uuid(),
        name: z.string(),
        check_type: z.string(),
        status: resultStatus.nullable(),
        total_checks: z.int(),
        successful_checks: z.int(),
        uptime_percentage: percentage,
        avg_response_time_ms: z.number().nullable(),
      }),
    ),
  })
  .meta({ id: 'MetricsOverview' });
