// SQL of the ingest transaction, nothing else: lock and read the services a batch is about,
// insert the results (idempotent on the result's key), write the states the batch moved and
// append its results to the rollup backlog. Each is one statement whatever the batch holds;
// the result pipeline (features/result-pipeline) tells the story.
import type { ServiceStatus } from '../../../../shared/src/status.js';
import { isUniqueViolation } from '../../db/pg-errors.js';
import { queryBound, type Tx } from '../../db/tx.js';
import type { IncomingResult } from './check-result.js';
import type { SelectableService } from '../services/service-selector.js';
import { hasMoved, type ServiceState } from './service-status.js';

export interface CheckResultsRepository {
  /**
   * Inserts the results of services that exist (of the reporting agent's organization, for an
   * organization's own agent); answers those that were new, in batch order: replays, and a
   * result repeated within the batch after its first time, are left out. It locks no service,
   * so batches about the same services insert side by side.
   */
  insert(tx: Tx, results: IncomingResult[]): Promise<IncomingResult[]>;
  /** Locks the services (in id order, so concurrent batches queue instead of deadlocking) and reads their states. */
  lockServices(tx: Tx, serviceIds: string[]): Promise<Map<string, LockedService>>;
  /** Removes results inserted for services deleted before they could be locked. */
  discard(tx: Tx, results: IncomingResult[]): Promise<void>;
  /** Writes the moved states (services and their locations' latest results) and appends a row (encodeBacklog) to the rollup backlog. */
  saveStates(tx: Tx, states: Map<string, ServiceState>, backlog: string): Promise<void>;
}

export interface LockedService {
  state: ServiceState;
  /** What selectors of rules and silences read of the service. */
  traits: SelectableService;
  /** Paused: its results are stored but move nothing. */
  paused: boolean;
  stale: boolean;
  /** An alert of the service is open: a recovery has something to resolve. */
  alerting: boolean;
  /** Other services depend on it (service-dependencies): its leaving RED needs their held alerts judged. */
  hasDependents: boolean;
}

export function createCheckResultsRepository(): CheckResultsRepository {
  return {
    async lockServices(tx, serviceIds) {
      // FOR NO KEY UPDATE: alerts inserted later in the transaction reference these rows, and a
      // service deleted meanwhile (a key change) waits for the batch or is skipped by it.
      const [row] = await queryBound<{ locked: LockedRow[] | null }>(tx, LOCK_SQL, [`{${serviceIds.join(',')}}`]);
      return new Map(
        (row?.locked ?? []).map((r) => [
          r.id,
          {
            state: toState(r),
            traits: { id: r.id, tags: r.tags ?? [], environment: r.environment, locations: r.locations ?? [], checkType: r.check_type },
            paused: r.paused,
            stale: r.stale,
            alerting: r.alerting,
            hasDependents: r.has_dependents,
          },
        ]),
      );
    },

    async insert(tx, results) {
      if (results.length === 0) return [];
      const { rows, origins } = toRecords(results);
      const params = [JSON.stringify(rows), JSON.stringify(origins)];
      if (new Set(results.map((r) => r.id)).size === results.length) {
        const row = (await insertAllNew(tx, [...params, results.length])) ?? (await queryBound<InsertedCount>(tx, INSERT_DISTINCT_SQL, [...params, results.length]))[0];
        if (row!.stored === results.length) return results;
        const fresh = new Set(row!.fresh);
        return results.filter((r) => fresh.has(r.id));
      }
      const [row] = await queryBound<{ fresh: number[] | null }>(tx, INSERT_REPEATING_SQL, params);
      return (row?.fresh ?? []).map((n) => results[n - 1]!);
    },

    async discard(tx, results) {
      if (results.length === 0) return;
      await queryBound(tx, `delete from check_results r using json_to_recordset(?::json) as v (service_id uuid, checked_at timestamptz, id uuid)
          where r.service_id = v.service_id and r.checked_at = v.checked_at and r.id = v.id`, [
        JSON.stringify(results.map((r) => ({ service_id: r.serviceId, checked_at: r.checkedAt.toISOString(), id: r.id }))),
      ]);
    },

    async saveStates(tx, states, backlog) {
      // Times as strings: JSON.stringify takes its slow path for every Date it meets.
      const locations: object[] = [];
      const services: object[] = [];
      for (const [id, s] of states) {
        if (!hasMoved(s)) continue;
        for (const location of s.movedLocations) {
          const l = s.byLocation.get(location)!;
          locations.push({ service_id: id, location, status: l.status, checked_at: l.checkedAt.toISOString(), response_time_ms: l.responseTimeMs });
        }
        services.push({
          id, status: s.status, checked_at: s.lastCheckedAt?.toISOString() ?? null, response_time_ms: s.lastResponseTimeMs, red_streak: s.redStreak, failure_streak: s.failureStreak,
          green_streak: s.greenStreak, flapping: s.flapping, status_changes: s.statusChanges,
        });
      }
      await queryBound(tx, SAVE_SQL, [JSON.stringify(locations), JSON.stringify(services), backlog]);
    },
  };
}

interface InsertedCount {
  stored: number;
  fresh: string[] | null;
}

/**
 * A batch is new unless an agent sends it again: the insert is first tried without `on
 * conflict`, whose check of each row's key cost a sixth of the statement (P3), in a savepoint
 * that a replay rolls back to. Answers undefined when a result was stored already; the
 * transaction then goes on as before the attempt.
 */
async function insertAllNew(tx: Tx, params: unknown[]): Promise<InsertedCount | undefined> {
  await queryBound(tx, 'savepoint new_results', []);
  try {
    const [row] = await queryBound<InsertedCount>(tx, INSERT_NEW_SQL, params);
    return row;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    await queryBound(tx, 'rollback to savepoint new_results', []);
    return undefined;
  }
}

interface LockedRow {
  id: string;
  organization_id: string;
  name: string;
  endpoint: string;
  status: ServiceStatus | null;
  locations: string[] | null;
  min_failing: unknown;
  last_checked_at: string | null;
  last_response_time_ms: number | null;
  red_streak: number;
  failure_streak: number;
  green_streak: number;
  flapping: boolean;
  status_changes: number[];
  tags: string[] | null;
  environment: string | null;
  check_type: string;
  paused: boolean;
  stale: boolean;
  alerting: boolean;
  has_dependents: boolean;
  latest: { location: string; status: ServiceStatus; checked_at: string; response_time_ms: number | null }[];
}

// One statement: the services locked, each with its locations' latest results. The rows come
// back as one JSON value: parsing it costs a fraction of decoding hundreds of rows field by field.
const LOCK_SQL = `select json_agg(locked) as locked from (
    select s.id, s.organization_id, s.name, s.endpoint, s.status, s.locations, s.options->'min_failing_locations' as min_failing,
           s.last_checked_at, s.last_response_time_ms, s.red_streak, s.failure_streak, s.green_streak, s.flapping, s.status_changes,
           s.tags, s.environment, s.check_type, s.paused, s.stale,
           exists (select 1 from alerts a where a.service_id = s.id and a.status in ('firing', 'acknowledged')) as alerting,
           exists (select 1 from service_dependencies d where d.depends_on_id = s.id) as has_dependents,
           coalesce((select json_agg(json_build_object('location', l.location, 'status', l.status, 'checked_at', l.checked_at, 'response_time_ms', l.response_time_ms))
                       from service_location_status l where l.service_id = s.id), '[]') as latest
      from services s where s.id = any(?::uuid[]) order by s.id for no key update of s) locked`;

function toState(r: LockedRow): ServiceState {
  return {
    organizationId: r.organization_id,
    name: r.name,
    endpoint: r.endpoint,
    status: r.status,
    locations: r.locations ?? [],
    minFailingLocations: Number(r.min_failing ?? 1) || 1,
    byLocation: new Map(r.latest.map((l) => [l.location, { status: l.status, checkedAt: new Date(l.checked_at), responseTimeMs: l.response_time_ms }])),
    lastCheckedAt: r.last_checked_at ? new Date(r.last_checked_at) : null,
    lastResponseTimeMs: r.last_response_time_ms,
    redStreak: Number(r.red_streak),
    failureStreak: Number(r.failure_streak),
    greenStreak: Number(r.green_streak),
    flapping: r.flapping,
    statusChanges: r.status_changes ?? [],
    movedLocations: new Set(),
  };
}

// The batch travels as two JSON parameters, its rows and the agents they came from (a row
// names its agent by position, from 1): one bind instead of ten per result, a plan that does
// not grow with the batch, and a fifth fewer bytes than the agent's fields repeated on every
// row. The organization comes from the service, which must exist (and belong to the agent's
// organization, for an organization's own agent: a transaction may hold batches of several
// agents).
const RECORD_COLUMNS = `(id uuid, service_id uuid, status text, response_time_ms float8, message text, origin int, checked_at_ms float8, ad_hoc boolean, details jsonb)`;

const insertFrom = (source: string, skipStored = true) => `insert into check_results (id, service_id, organization_id, status, response_time_ms, message, location, agent_id, checked_at, ad_hoc, details)
    select v.id, v.service_id, s.organization_id, v.status, v.response_time_ms, v.message, o.location, o.agent_id, v.checked_at, v.ad_hoc, v.details
      from ${source} join origins o on o.n = v.origin join services s on s.id = v.service_id
     where o.agent_organization_id is null or s.organization_id = o.agent_organization_id
    ${skipStored ? 'on conflict (service_id, checked_at, id) do nothing' : ''}
    returning service_id, checked_at, id`;

const ORIGINS = `origins as (select * from rows from (json_to_recordset(?::json) as (location text, agent_id text, agent_organization_id uuid)) with ordinality as o (location, agent_id, agent_organization_id, n))`;

/** The rows as `v`, each with its time as a timestamp; `source` is json_to_recordset of them, alias r. */
const rowsAs = (source: string) => `v as (select r.*, to_timestamp(r.checked_at_ms / 1000) as checked_at from ${source})`;

// A batch whose ids are all different, as agents send them: how many rows it stored, and
// only when that is not all of them (a replay), the ids stored, which name the results.
const insertDistinct = (skipStored: boolean) => `with ${rowsAs(`json_to_recordset(?::json) as r ${RECORD_COLUMNS}`)}, ${ORIGINS},
  stored as (${insertFrom('v', skipStored)})
  select count(*)::int as stored, case when count(*) < ? then array_agg(id)::text[] end as fresh from stored`;
const INSERT_DISTINCT_SQL = insertDistinct(true);
/** The same, failing (unique violation) when a result is stored already. */
const INSERT_NEW_SQL = insertDistinct(false);

// A batch repeating an id: the positions (from 1) in the batch of the rows it stored, as one
// array; for a repeated row, the first, since on conflict skips the repeats.
const INSERT_REPEATING_SQL = `with ${rowsAs(`rows from (json_to_recordset(?::json) as ${RECORD_COLUMNS}) with ordinality as r`)}, ${ORIGINS},
  stored as (${insertFrom('v')})
  select array_agg(n order by n) as fresh
    from (select min(v.ordinality)::int as n from v join stored using (service_id, checked_at, id) group by service_id, checked_at, id) first`;

// States and the backlog row in one round trip: three writes of one statement each.
const SAVE_SQL = `with locations as (
    insert into service_location_status (service_id, location, status, checked_at, response_time_ms)
      select * from json_to_recordset(?::json) as v (service_id uuid, location text, status text, checked_at timestamptz, response_time_ms float8)
    on conflict (service_id, location) do update set status = excluded.status, checked_at = excluded.checked_at, response_time_ms = excluded.response_time_ms
  ), services as (
    update services s set status = v.status, last_checked_at = v.checked_at, last_response_time_ms = v.response_time_ms,
           red_streak = v.red_streak, failure_streak = v.failure_streak, green_streak = v.green_streak, flapping = v.flapping,
           status_changes = v.status_changes, stale = false
      from json_to_recordset(?::json) as v (id uuid, status text, checked_at timestamptz, response_time_ms float8, red_streak int, failure_streak int,
           green_streak int, flapping boolean, status_changes jsonb)
     where s.id = v.id
  ), backlog as (
    insert into rollup_backlog (results) values (?)
  )
  select 1`;

interface Origin {
  location: string;
  agent_id: string;
  agent_organization_id: string | null;
}

/** The rows of the insert and the agents they name. A batch is one agent's: the agent is looked up when it changes, not per row. */
function toRecords(results: IncomingResult[]): { rows: object[]; origins: Origin[] } {
  const origins: Origin[] = [];
  const positions = new Map<string, number>();
  let last: IncomingResult | undefined;
  let origin = 0;
  const rows = results.map((r) => {
    if (!last || r.agentId !== last.agentId || r.location !== last.location || r.agentOrganizationId !== last.agentOrganizationId) {
      const key = `${r.agentId} ${r.location} ${r.agentOrganizationId}`;
      if (!positions.has(key)) positions.set(key, origins.push({ location: r.location, agent_id: r.agentId, agent_organization_id: r.agentOrganizationId }));
      origin = positions.get(key)!;
      last = r;
    }
    return {
      id: r.id,
      service_id: r.serviceId,
      status: r.status,
      response_time_ms: r.responseTimeMs,
      message: r.message,
      origin,
      checked_at_ms: r.checkedAt.getTime(),
      ad_hoc: r.adHoc,
      details: r.details,
    };
  });
  return { rows, origins };
}
