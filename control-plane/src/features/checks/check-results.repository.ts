// Raw SQL for the hot path. One transaction per batch: lock the batch's services in id order
// before anything else, insert the results (one statement, idempotent on the result id), move
// each service's status and failure streaks forward, fold the stored results into the
// rollups, then let the caller write what follows from them (alerts, outbox).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ServiceStatus } from '../../../../shared/src/status.js';
import { isMissingPartition } from '../../db/pg-errors.js';
import { queryBound, type Tx } from '../../db/tx.js';
import type { PartitionKeeper } from './partition-keeper.js';
import { rollupDeltas } from './rollup-deltas.js';

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
  serviceEndpoint: string;
  /** The service's status before this result; null when this result did not move it (late). */
  previousStatus: ServiceStatus | null;
  /** The service's status after this result: its locations' latest results, by quorum. */
  serviceStatus: ServiceStatus;
  /** How many of the service's locations were RED or YELLOW after this result. */
  failingLocations: number;
  /** False for a result older than its location's latest: stored, but it moves nothing. */
  current: boolean;
  redStreak: number;
  failureStreak: number;
}

export interface CheckResultsRepository {
  /** `organizationId`, when set, drops results for services of other organizations. */
  ingest<T>(results: IncomingResult[], organizationId: string | null, then: (tx: Tx, stored: StoredResult[]) => Promise<T>): Promise<{ stored: StoredResult[]; outcome: T | undefined }>;
}

interface ServiceState {
  status: ServiceStatus | null;
  locations: string[];
  minFailingLocations: number;
  /** Latest status and time of each location's results. */
  byLocation: Map<string, { status: ServiceStatus; checkedAt: Date; moved: boolean }>;
  lastCheckedAt: Date | null;
  lastResponseTimeMs: number | null;
  redStreak: number;
  failureStreak: number;
  /** This batch moved the service forward, so its row must be written. */
  moved: boolean;
}

export function createCheckResultsRepository(em: () => EntityManager, partitions: PartitionKeeper): CheckResultsRepository {
  return {
    async ingest(results, organizationId, then) {
      if (results.length === 0) return { stored: [], outcome: undefined };
      // Outside the transaction: creating a partition locks the whole table for a moment.
      await partitions.ensure(results.map((r) => r.checkedAt));
      return em().transactional(async (tx) => {
        // Lock the services first, in id order: inserting results first would take a key-share
        // lock (the foreign key) that two concurrent batches then both try to upgrade: a deadlock.
        const states = await lockServices(tx, [...new Set(results.map((r) => r.serviceId))].sort());
        const rows = await queryBound<Record<string, unknown>>(tx, INSERT_SQL, [JSON.stringify(results.map(toRecord)), organizationId, organizationId]);
        if (rows.length === 0) return { stored: [], outcome: undefined };
        const stored = rows.map((row) => advance(row, states));
        await saveStates(tx, states);
        await saveRollups(tx, stored);
        return { stored, outcome: await then(tx, stored) };
      }).catch((err: unknown) => {
        // Another replica dropped a partition this one still counted on: look again next time.
        if (isMissingPartition(err)) partitions.forget();
        throw err;
      });
    },
  };
}

async function lockServices(tx: Tx, ids: string[]): Promise<Map<string, ServiceState>> {
  const marks = ids.map(() => '?').join(',');
  const rows = await tx.execute<Record<string, unknown>[]>(
    `select id, status, locations, options->'min_failing_locations' as min_failing, last_checked_at, red_streak, failure_streak
       from services where id in (${marks}) order by id for update`,
    ids,
  );
  const latest = await tx.execute<{ service_id: string; location: string; status: ServiceStatus; checked_at: string }[]>(
    `select service_id, location, status, checked_at from service_location_status where service_id in (${marks})`,
    ids,
  );
  return new Map(
    rows.map((r) => [
      String(r.id),
      {
        status: (r.status as ServiceStatus | null) ?? null,
        locations: (r.locations ?? []) as string[],
        minFailingLocations: Number(r.min_failing ?? 1) || 1,
        byLocation: new Map(
          latest.filter((l) => l.service_id === r.id).map((l) => [l.location, { status: l.status, checkedAt: new Date(l.checked_at), moved: false }]),
        ),
        lastCheckedAt: r.last_checked_at ? new Date(r.last_checked_at as string) : null,
        lastResponseTimeMs: null,
        redStreak: Number(r.red_streak),
        failureStreak: Number(r.failure_streak),
        moved: false,
      },
    ]),
  );
}

/**
 * Applies one stored row (rows come in checked_at order) to its service's state. The
 * service is RED when at least min_failing_locations of its locations' latest results are
 * RED, else YELLOW when as many are RED or YELLOW, else GREEN (API.md).
 */
function advance(row: Record<string, unknown>, states: Map<string, ServiceState>): StoredResult {
  const result = fromRow(row);
  const state = states.get(result.serviceId)!;
  const held = state.byLocation.get(result.location);
  const current = !held || held.checkedAt <= result.checkedAt;
  let previousStatus: ServiceStatus | null = null;
  if (current) {
    state.byLocation.set(result.location, { status: result.status, checkedAt: result.checkedAt, moved: true });
  }
  const { status: serviceStatus, failing } = quorum(state, result);
  if (current) {
    previousStatus = state.status;
    state.status = serviceStatus;
    if (!state.lastCheckedAt || state.lastCheckedAt < result.checkedAt) state.lastCheckedAt = result.checkedAt;
    state.redStreak = serviceStatus === 'RED' ? state.redStreak + 1 : 0;
    state.failureStreak = serviceStatus === 'GREEN' ? 0 : state.failureStreak + 1;
    state.lastResponseTimeMs = result.responseTimeMs;
    state.moved = true;
  }
  return { ...result, previousStatus, serviceStatus, failingLocations: failing, current, redStreak: state.redStreak, failureStreak: state.failureStreak };
}

function quorum(state: ServiceState, result: { location: string; status: ServiceStatus }): { status: ServiceStatus; failing: number } {
  // Locations the service is checked from; a result from elsewhere still counts for itself.
  const counted = new Set([...state.locations, result.location]);
  const latest = [...state.byLocation].filter(([location]) => counted.has(location)).map(([, l]) => l.status);
  const red = latest.filter((s) => s === 'RED').length;
  const failing = latest.filter((s) => s !== 'GREEN').length;
  const needed = Math.min(state.minFailingLocations, Math.max(1, latest.length));
  return { status: red >= needed ? 'RED' : failing >= needed ? 'YELLOW' : 'GREEN', failing };
}

async function saveStates(tx: Tx, states: Map<string, ServiceState>): Promise<void> {
  const moved = [...states].filter(([, s]) => s.moved);
  if (moved.length === 0) return;
  const locations = moved.flatMap(([id, s]) => [...s.byLocation].filter(([, l]) => l.moved).map(([location, l]) => ({ id, location, ...l })));
  await tx.execute(
    `insert into service_location_status (service_id, location, status, checked_at)
     values ${locations.map(() => '(?, ?, ?, ?)').join(',')}
     on conflict (service_id, location) do update set status = excluded.status, checked_at = excluded.checked_at`,
    locations.flatMap((l) => [l.id, l.location, l.status, l.checkedAt.toISOString()]),
  );
  await tx.execute(
    `update services s set status = v.status, last_checked_at = v.checked_at, last_response_time_ms = v.response_time_ms,
            red_streak = v.red_streak, failure_streak = v.failure_streak
       from (values ${moved.map(() => '(?::uuid, ?, ?::timestamptz, ?::float8, ?::int, ?::int)').join(',')})
         as v (id, status, checked_at, response_time_ms, red_streak, failure_streak)
      where s.id = v.id`,
    moved.flatMap(([id, s]) => [id, s.status, s.lastCheckedAt!.toISOString(), s.lastResponseTimeMs, s.redStreak, s.failureStreak]),
  );
}

// The batch travels as one JSON parameter: one bind instead of ten per result, and a plan
// that does not grow with the batch.
const INSERT_SQL = `with v as (
    select * from json_to_recordset(?::json) as v (id uuid, service_id uuid, status text, response_time_ms float8, message text,
      location text, agent_id text, checked_at timestamptz, ad_hoc boolean, details jsonb)
  ), inserted as (
    insert into check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at, ad_hoc, details)
    select v.id, v.service_id, s.organization_id, v.status, v.response_time_ms, v.message, v.location, v.agent_id, v.checked_at, v.ad_hoc, v.details
      from v join services s on s.id = v.service_id and (?::uuid is null or s.organization_id = ?::uuid)
    on conflict (id, checked_at) do nothing
    returning *
  )
  select i.*, s.name as service_name, s.endpoint as service_endpoint from inserted i join services s on s.id = i.service_id
  order by i.checked_at, i.id`;

const DELTA_COLUMNS = 'service_id uuid, bucket timestamptz, total_checks int, successful_checks int, response_time_sum_ms float8, response_time_max_ms float8';

function upsertRollup(table: string, histogram: boolean): string {
  return `insert into ${table} as r
      select * from json_to_recordset(?::json) as x (${DELTA_COLUMNS}${histogram ? ', response_histogram int[]' : ''})
    on conflict (service_id, bucket) do update set
      total_checks = r.total_checks + excluded.total_checks,
      successful_checks = r.successful_checks + excluded.successful_checks,
      response_time_sum_ms = r.response_time_sum_ms + excluded.response_time_sum_ms,
      response_time_max_ms = greatest(r.response_time_max_ms, excluded.response_time_max_ms)${
        histogram ? ', response_histogram = outpost_histogram_add(r.response_histogram, excluded.response_histogram)' : ''
      }`;
}

const ROLLUP_SQL = `with by_minute as (${upsertRollup('check_rollups_minute', false)}),
  by_hour as (${upsertRollup('check_rollups_hour', true)}),
  by_day as (${upsertRollup('check_rollups_day', true)})
  select 1`;

/** Folds exactly the stored results (replays stored nothing) into the rollups, in one statement. */
async function saveRollups(tx: Tx, stored: StoredResult[]): Promise<void> {
  const { minute, hour, day } = rollupDeltas(stored);
  await queryBound(tx, ROLLUP_SQL, [JSON.stringify(minute), JSON.stringify(hour), JSON.stringify(day)]);
}

function toRecord(r: IncomingResult) {
  return {
    id: r.id,
    service_id: r.serviceId,
    status: r.status,
    response_time_ms: r.responseTimeMs,
    message: r.message,
    location: r.location,
    agent_id: r.agentId,
    checked_at: r.checkedAt.toISOString(),
    ad_hoc: r.adHoc,
    details: r.details,
  };
}

function fromRow(row: Record<string, unknown>): Omit<StoredResult, 'previousStatus' | 'serviceStatus' | 'failingLocations' | 'current' | 'redStreak' | 'failureStreak'> {
  return {
    id: String(row.id),
    serviceId: String(row.service_id),
    organizationId: String(row.organization_id),
    serviceName: String(row.service_name),
    serviceEndpoint: String(row.service_endpoint),
    status: row.status as ServiceStatus,
    responseTimeMs: Number(row.response_time_ms),
    message: String(row.message),
    location: String(row.location),
    agentId: String(row.agent_id),
    checkedAt: new Date(row.checked_at as string),
    adHoc: Boolean(row.ad_hoc),
    details: (row.details ?? {}) as Record<string, unknown>,
  };
}
