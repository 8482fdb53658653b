// Raw SQL for the hot paths: ingest inserts a batch with one multi-row statement,
// idempotent on the result id, and moves service statuses forward under row locks.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ServiceStatus } from '../../../../shared/src/status.js';

export interface IncomingResult {
  id: string;
  serviceId: string;
  status: ServiceStatus;
  responseTimeMs: number;
  message: string;
  location: string;
  agentId: string;
  checkedAt: Date;
  adHoc: boolean;
  details: Record<string, unknown>;
}

export interface StoredResult extends IncomingResult {
  organizationId: string;
  serviceName: string;
}

export interface StatusChange {
  serviceId: string;
  previousStatus: ServiceStatus | null;
}

export interface IngestOutcome {
  /** Results stored now; replays of stored ids are left out. */
  stored: StoredResult[];
  /** Previous status of each service whose status this batch moved forward. */
  previous: Map<string, ServiceStatus | null>;
}

export interface CheckResultsRepository {
  ingest(results: IncomingResult[]): Promise<IngestOutcome>;
}

export function createCheckResultsRepository(em: () => EntityManager): CheckResultsRepository {
  return {
    async ingest(results) {
      if (results.length === 0) return { stored: [], previous: new Map() };
      return em().transactional(async (tx) => {
        const rows = await tx.execute<StoredRow[]>(insertSql(results.length), results.flatMap(bindings));
        const stored = rows.map(fromRow);
        const latest = latestPerService(stored);
        const previous = new Map<string, ServiceStatus | null>();
        if (latest.length > 0) {
          // Lock in id order so concurrent batches cannot deadlock on each other.
          const ids = latest.map((r) => r.serviceId).sort();
          await tx.execute(`select id from services where id in (${ids.map(() => '?').join(',')}) order by id for update`, ids);
          const updated = await tx.execute<{ id: string; previous_status: ServiceStatus | null }[]>(
            `with latest (service_id, status, checked_at, response_time_ms) as (values ${latest.map(() => '(?::uuid, ?, ?::timestamptz, ?::float8)').join(',')}),
                  before as (select s.id, s.status from services s join latest l on l.service_id = s.id)
             update services s
                set status = l.status, last_checked_at = l.checked_at, last_response_time_ms = l.response_time_ms
               from latest l, before b
              where s.id = l.service_id and b.id = s.id
                and (s.last_checked_at is null or s.last_checked_at <= l.checked_at)
          returning s.id, b.status as previous_status`,
            latest.flatMap((r) => [r.serviceId, r.status, r.checkedAt.toISOString(), r.responseTimeMs]),
          );
          for (const row of updated) previous.set(row.id, row.previous_status);
        }
        return { stored, previous };
      });
    },
  };
}

interface StoredRow {
  id: string;
  service_id: string;
  organization_id: string;
  service_name: string;
  status: ServiceStatus;
  response_time_ms: number;
  message: string;
  location: string;
  agent_id: string;
  checked_at: Date;
  ad_hoc: boolean;
  details: Record<string, unknown>;
}

function insertSql(count: number): string {
  const tuple = '(?::uuid, ?::uuid, ?, ?::float8, ?, ?, ?, ?::timestamptz, ?::boolean, ?::jsonb)';
  return `with v (id, service_id, status, response_time_ms, message, location, agent_id, checked_at, ad_hoc, details) as (
            values ${Array.from({ length: count }, () => tuple).join(',')}
          ), inserted as (
            insert into check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at, ad_hoc, details)
            select v.id, v.service_id, s.organization_id, v.status, v.response_time_ms, v.message, v.location, v.agent_id, v.checked_at, v.ad_hoc, v.details
              from v join services s on s.id = v.service_id
            on conflict (id) do nothing
            returning *
          )
          select i.*, s.name as service_name from inserted i join services s on s.id = i.service_id
          order by i.checked_at`;
}

function bindings(r: IncomingResult): unknown[] {
  return [r.id, r.serviceId, r.status, r.responseTimeMs, r.message, r.location, r.agentId, r.checkedAt.toISOString(), r.adHoc, JSON.stringify(r.details)];
}

function fromRow(row: StoredRow): StoredResult {
  return {
    id: row.id,
    serviceId: row.service_id,
    organizationId: row.organization_id,
    serviceName: row.service_name,
    status: row.status,
    responseTimeMs: Number(row.response_time_ms),
    message: row.message,
    location: row.location,
    agentId: row.agent_id,
    checkedAt: new Date(row.checked_at),
    adHoc: row.ad_hoc,
    details: row.details,
  };
}

function latestPerService(results: StoredResult[]): StoredResult[] {
  const latest = new Map<string, StoredResult>();
  for (const r of results) {
    const held = latest.get(r.serviceId);
    if (!held || held.checkedAt <= r.checkedAt) latest.set(r.serviceId, r);
  }
  return [...latest.values()];
}
