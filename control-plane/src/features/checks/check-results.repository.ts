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
  organizationId: string;
  name: string;
  endpoint: string;
  status: ServiceStatus | null;
  locations: string[];
  minFailingLocations: number;
  /** Latest status, time and response time of each location's results. */
  byLocation: Map<string, { status: ServiceStatus; checkedAt: Date; responseTimeMs: number | null; moved: boolean }>;
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
        // Lock the services first, in id order, so concurrent batches of one service queue up
        // instead of deadlocking, and a service deleted meanwhile gets no results.
        const states = await lockServices(tx, [...new Set(results.map((r) => r.serviceId))].sort());
        const accepted = acceptable(results, states, organizationId);
        if (accepted.length === 0) return { stored: [], outcome: undefined };
        const records = accepted.map((r) => toRecord(r, states.get(r.serviceId)!.organizationId));
        const inserted = await queryBound<{ id: string; checked_at: Date }>(tx, INSERT_SQL, [JSON.stringify(records)]);
        if (inserted.length === 0) return { stored: [], outcome: undefined };
        const isNew = new Set(inserted.map((r) => resultKey(r.id, new Date(r.checked_at))));
        const stored = accepted
          .filter((r) => isNew.has(resultKey(r.id, r.checkedAt)))
          .sort((a, b) => a.checkedAt.getTime() - b.checkedAt.getTime() || (a.id < b.id ? -1 : 1))
          .map((r) => advance(r, states.get(r.serviceId)!));
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
  const idArray = `{${ids.join(',')}}`;
  const rows = await queryBound<Record<string, unknown>>(
    tx,
    `select id, organization_id, name, endpoint, status, locations, options->'min_failing_locations' as min_failing,
            last_checked_at, red_streak, failure_streak
       from services where id = any(?::uuid[]) order by id for update`,
    [idArray],
  );
  const latest = await queryBound<{ service_id: string; location: string; status: ServiceStatus; checked_at: Date; response_time_ms: number | null }>(
    tx,
    'select service_id, location, status, checked_at, response_time_ms from service_location_status where service_id = any(?::uuid[])',
    [idArray],
  );
  const states = new Map<string, ServiceState>();
  for (const r of rows) {
    states.set(String(r.id), {
      organizationId: String(r.organization_id),
      name: String(r.name),
      endpoint: String(r.endpoint),
      status: (r.status as ServiceStatus | null) ?? null,
      locations: (r.locations ?? []) as string[],
      minFailingLocations: Number(r.min_failing ?? 1) || 1,
      byLocation: new Map(),
      lastCheckedAt: r.last_checked_at ? new Date(r.last_checked_at as string) : null,
      lastResponseTimeMs: null,
      redStreak: Number(r.red_streak),
      failureStreak: Number(r.failure_streak),
      moved: false,
    });
  }
  for (const l of latest) {
    states.get(l.service_id)?.byLocation.set(l.location, { status: l.status, checkedAt: new Date(l.checked_at), responseTimeMs: l.response_time_ms, moved: false });
  }
  return states;
}

/**
 * Results of services that exist (and, for an organization's agent, belong to it), each id
 * and time once: a result repeated within a batch counts once, like a replayed one.
 */
function acceptable(results: IncomingResult[], states: Map<string, ServiceState>, organizationId: string | null): IncomingResult[] {
  const seen = new Set<string>();
  return results.filter((r) => {
    const state = states.get(r.serviceId);
    const key = resultKey(r.id, r.checkedAt);
    if (!state || (organizationId !== null && state.organizationId !== organizationId) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const resultKey = (id: string, checkedAt: Date) => `${id}/${checkedAt.getTime()}`;

/**
 * Applies one stored row (rows come in checked_at order) to its service's state. The
 * service is RED when at least min_failing_locations of its locations' latest results are
 * RED, else YELLOW when as many are RED or YELLOW, else GREEN (API.md).
 */
function advance(incoming: IncomingResult, state: ServiceState): StoredResult {
  const result = { ...incoming, organizationId: state.organizationId, serviceName: state.name, serviceEndpoint: state.endpoint };
  const held = state.byLocation.get(result.location);
  const current = !held || held.checkedAt <= result.checkedAt;
  let previousStatus: ServiceStatus | null = null;
  if (current) {
    state.byLocation.set(result.location, { status: result.status, checkedAt: result.checkedAt, responseTimeMs: result.responseTimeMs, moved: true });
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
  await queryBound(
    tx,
    `insert into service_location_status (service_id, location, status, checked_at, response_time_ms)
       select * from json_to_recordset(?::json) as v (service_id uuid, location text, status text, checked_at timestamptz, response_time_ms float8)
     on conflict (service_id, location) do update set status = excluded.status, checked_at = excluded.checked_at, response_time_ms = excluded.response_time_ms`,
    [
      JSON.stringify(
        locations.map((l) => ({ service_id: l.id, location: l.location, status: l.status, checked_at: l.checkedAt, response_time_ms: l.responseTimeMs })),
      ),
    ],
  );
  await queryBound(
    tx,
    `update services s set status = v.status, last_checked_at = v.checked_at, last_response_time_ms = v.response_time_ms,
            red_streak = v.red_streak, failure_streak = v.failure_streak
       from json_to_recordset(?::json) as v (id uuid, status text, checked_at timestamptz, response_time_ms float8, red_streak int, failure_streak int)
      where s.id = v.id`,
    [
      JSON.stringify(
        moved.map(([id, s]) => ({ id, status: s.status, checked_at: s.lastCheckedAt, response_time_ms: s.lastResponseTimeMs, red_streak: s.redStreak, failure_streak: s.failureStreak })),
      ),
    ],
  );
}

// The batch travels as one JSON parameter: one bind instead of ten per result, and a plan
// that does not grow with the batch. It answers only the keys of the rows it stored.
const INSERT_SQL = `insert into check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at, ad_hoc, details)
  select * from json_to_recordset(?::json) as v (id uuid, service_id uuid, organization_id uuid, status text, response_time_ms float8,
    message text, location text, agent_id text, checked_at timestamptz, ad_hoc boolean, details jsonb)
  on conflict (service_id, checked_at, id) do nothing
  returning id, checked_at`;

function upsertRollup(table: string, histogram: boolean): string {
  const columns = `service_id, bucket, total_checks, successful_checks, response_time_sum_ms, response_time_max_ms${histogram ? ', response_histogram' : ''}`;
  return `insert into ${table} as r (${columns})
      select ${columns} from json_to_recordset(?::json) as x (service_id uuid, bucket timestamptz, total_checks int, successful_checks int,
        response_time_sum_ms float8, response_time_max_ms float8${histogram ? ', response_histogram int[]' : ''})
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

function toRecord(r: IncomingResult, organizationId: string) {
  return {
    id: r.id,
    service_id: r.serviceId,
    organization_id: organizationId,
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
