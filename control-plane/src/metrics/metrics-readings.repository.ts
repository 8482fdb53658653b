// The few statements a scrape runs, one per family read from the database. They read what
// ingestion and the agent sessions already keep up to date (the latest result per service and
// location, the outbox, the rollup backlog, the sessions of live replicas), so a scrape never
// scans results, and every replica reports the same values.
import type { Query } from '../db/pooled-sql.js';

export interface ProbeReading {
  serviceId: string;
  serviceName: string;
  location: string;
  ok: boolean;
  /** Absent for rows written before response times were kept per location. */
  seconds: number | null;
}

export interface ProbeReadings {
  probes: ProbeReading[];
  /** Services with a result that the cap left out. */
  omittedServices: number;
}

export interface MetricsReadings {
  /** Online agents per location, zero for a location some service runs at. */
  agentsOnline(): Promise<Map<string, number>>;
  /** Deliveries waiting to be sent (or retried), per channel type. */
  pendingDeliveries(): Promise<Map<string, number>>;
  /** Ingested batches waiting in the rollup backlog. */
  rollupBacklog(): Promise<number>;
  /** The latest result of each service at each location, for at most `maxServices` services. */
  probes(maxServices: number): Promise<ProbeReadings>;
}

const AGENTS_ONLINE_SQL = `
  select l.location, count(o.agent_id)::int as online
    from (select distinct jsonb_array_elements_text(locations) as location from services
          union select location from agent_sessions) l
    left join (select s.location, s.agent_id from agent_sessions s
                 join control_plane_replicas r on r.id = s.replica_id
                where r.expires_at > now()) o on o.location = l.location
   group by l.location`;

const PENDING_DELIVERIES_SQL = `
  select c.channel_type, count(*)::int as pending
    from deliveries d join notification_channels c on c.id = d.channel_id
   where d.status = 'pending'
   group by c.channel_type`;

// The first services by id, so that the same ones stay exported from scrape to scrape.
const PROBES_SQL = `
  with exported as (select distinct service_id from service_location_status order by service_id limit $1)
  select l.service_id, s.name, l.location, l.status, l.response_time_ms,
         (select count(distinct service_id) from service_location_status)::int as services
    from exported e
    join service_location_status l on l.service_id = e.service_id
    join services s on s.id = l.service_id`;

interface ProbeRow {
  service_id: string;
  name: string;
  location: string;
  status: 'GREEN' | 'YELLOW' | 'RED';
  response_time_ms: number | null;
  services: number;
}

export function createMetricsReadingsRepository(query: Query): MetricsReadings {
  return {
    async agentsOnline() {
      const rows = await query<{ location: string; online: number }>(AGENTS_ONLINE_SQL, []);
      return new Map(rows.map((r) => [r.location, r.online]));
    },
    async pendingDeliveries() {
      const rows = await query<{ channel_type: string; pending: number }>(PENDING_DELIVERIES_SQL, []);
      return new Map(rows.map((r) => [r.channel_type, r.pending]));
    },
    async rollupBacklog() {
      const [row] = await query<{ batches: number }>('select count(*)::int as batches from rollup_backlog', []);
      return row?.batches ?? 0;
    },
    async probes(maxServices) {
      const rows = await query<ProbeRow>(PROBES_SQL, [maxServices]);
      const exported = new Set(rows.map((r) => r.service_id)).size;
      return {
        // A degraded (YELLOW) result passed its check: only RED is a failed probe.
        probes: rows.map((r) => ({ serviceId: r.service_id, serviceName: r.name, location: r.location, ok: r.status !== 'RED', seconds: r.response_time_ms === null ? null : r.response_time_ms / 1000 })),
        omittedServices: rows.length === 0 ? 0 : rows[0]!.services - exported,
      };
    },
  };
}
