// Reads for the dashboard's service list: counts and filter values over an organization, and
// the latest result of each location and hourly response times of a page of services. Each
// is one statement, whatever the number of services.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ServiceStatus } from '../../../../shared/src/status.js';

export interface ServicesSummary {
  total: number;
  statuses: Record<ServiceStatus | 'PENDING', number>;
  tags: string[];
  environments: string[];
  locations: string[];
  checkTypes: string[];
}

export interface LocationStatus {
  location: string;
  status: ServiceStatus;
  checkedAt: Date;
  /** Null for a location whose latest result was stored before response times were kept. */
  responseTimeMs: number | null;
}

export interface ServiceOverviewRepository {
  summary(organizationId: string): Promise<ServicesSummary>;
  /** Per service, its locations' latest results, by location. */
  locationStatuses(serviceIds: string[]): Promise<Map<string, LocationStatus[]>>;
  /**
   * Per service with checks in the window, the mean response time (ms, rounded) of each of
   * `hours` hours from `from` (an hour's start), oldest first, null for an hour without checks.
   */
  hourlyMeans(serviceIds: string[], from: Date, hours: number): Promise<Map<string, (number | null)[]>>;
}

/** Distinct values of one expression over the organization's services, case-insensitively sorted. */
const distinctValues = (expression: string, from = 'services s') =>
  `array(select v from (select distinct ${expression} as v from ${from} where s.organization_id = ?) as d where v is not null and v <> '' order by lower(v), v)`;

export function createServiceOverviewRepository(em: () => EntityManager): ServiceOverviewRepository {
  return {
    async summary(organizationId) {
      const [row] = await em().execute<Record<string, unknown>[]>(
        `select count(*)::int as total,
                count(*) filter (where s.status = 'GREEN')::int as green, count(*) filter (where s.status = 'YELLOW')::int as yellow,
                count(*) filter (where s.status = 'RED')::int as red, count(*) filter (where s.status is null)::int as pending,
                ${distinctValues('t.tag', 'services s cross join jsonb_array_elements_text(s.tags) as t (tag)')} as tags,
                ${distinctValues('s.environment')} as environments,
                ${distinctValues('l.location', 'services s cross join jsonb_array_elements_text(s.locations) as l (location)')} as locations,
                ${distinctValues('s.check_type')} as check_types
           from services s where s.organization_id = ?`,
        Array(5).fill(organizationId),
      );
      const r = row!;
      return {
        total: Number(r.total),
        statuses: { GREEN: Number(r.green), YELLOW: Number(r.yellow), RED: Number(r.red), PENDING: Number(r.pending) },
        tags: r.tags as string[],
        environments: r.environments as string[],
        locations: r.locations as string[],
        checkTypes: r.check_types as string[],
      };
    },

    async locationStatuses(serviceIds) {
      const byService = new Map<string, LocationStatus[]>();
      if (serviceIds.length === 0) return byService;
      // Only the locations a service is checked from now: a removed location's last result
      // no longer counts for its status. Services without locations (heartbeats) show all.
      const rows = await em().execute<Record<string, unknown>[]>(
        `select l.service_id, l.location, l.status, l.checked_at, l.response_time_ms
           from service_location_status l join services s on s.id = l.service_id
          where l.service_id = any(?::uuid[])
            and (s.locations @> jsonb_build_array(l.location) or jsonb_array_length(s.locations) = 0)
          order by l.service_id, l.location`,
        [serviceIds],
      );
      for (const r of rows) {
        const id = String(r.service_id);
        const list = byService.get(id) ?? [];
        list.push({
          location: String(r.location),
          status: r.status as ServiceStatus,
          checkedAt: new Date(r.checked_at as string),
          responseTimeMs: r.response_time_ms === null ? null : Number(r.response_time_ms),
        });
        byService.set(id, list);
      }
      return byService;
    },

    async hourlyMeans(serviceIds, from, hours) {
      const byService = new Map<string, (number | null)[]>();
      if (serviceIds.length === 0) return byService;
      // One index range scan per service, so the cost follows the page, never the length of the
      // kept history (an `= any` over the ids may turn into a scan of the whole table). One row
      // per service: each hour's slot in the window beside its mean, so no aggregate sorts.
      const rows = await em().execute<{ service_id: string; slots: number[]; means: number[] }[]>(
        `select s.id as service_id, r.slots, r.means
           from unnest(?::uuid[]) as s (id)
          cross join lateral (
            select array_agg((extract(epoch from bucket - ?::timestamptz) / 3600)::int) as slots,
                   array_agg(round(response_time_sum_ms / total_checks)::int) as means
              from check_rollups_hour
             where service_id = s.id and bucket >= ? and bucket < ? and total_checks > 0) as r
          where r.slots is not null`,
        [serviceIds, from.toISOString(), from.toISOString(), new Date(from.getTime() + hours * 3_600_000).toISOString()],
      );
      for (const r of rows) {
        const trend = new Array<number | null>(hours).fill(null);
        r.slots.forEach((slot, i) => (trend[slot] = r.means[i]!));
        byService.set(String(r.service_id), trend);
      }
      return byService;
    },
  };
}
