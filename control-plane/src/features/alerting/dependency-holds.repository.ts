// What service dependencies mean inside the ingest transaction, read after the batch's
// statuses were written (so a parent and its dependent in one batch see each other's new
// state). One statement each, whatever the batch; nothing is cached, so every replica reads
// the same edges.
import type { ServiceStatus } from '../../../../shared/src/status.js';
import { queryBound, type Tx } from '../../db/tx.js';
import type { SelectableService } from '../services/service-selector.js';

export interface HoldingParent {
  id: string;
  name: string;
}

/** A dependent of a parent that just left RED, as its latest stored result left it. */
export interface HeldDependent {
  serviceId: string;
  organizationId: string;
  name: string;
  endpoint: string;
  serviceStatus: ServiceStatus;
  failingLocations: number;
  redStreak: number;
  failureStreak: number;
  greenStreak: number;
  flapping: boolean;
  /** What rule selectors read of the service. */
  service: SelectableService;
  /** The latest result of the service. */
  result: { id: string; status: ServiceStatus; message: string; location: string; agentId: string; responseTimeMs: number; checkedAt: Date };
  /** The recovered parents it depends on (whose RED held its alerts). */
  heldBy: HoldingParent[];
}

export interface DependencyHoldsRepository {
  /** The RED direct dependencies of each of the services that has any. */
  redDependencies(tx: Tx, serviceIds: string[]): Promise<Map<string, HoldingParent[]>>;
  /**
   * The dependents of `parentIds` to evaluate afresh: checked at least once, not among
   * `excluded` (judged with the batch already), and with no other dependency still RED.
   */
  heldDependents(tx: Tx, parentIds: string[], excluded: string[]): Promise<HeldDependent[]>;
}

const RED_DEPENDENCIES_SQL = `select d.service_id, p.id, p.name from service_dependencies d join services p on p.id = d.depends_on_id
   where d.service_id = any(?::uuid[]) and p.status = 'RED' order by d.service_id, d.position`;

// Failing locations as the status rule counts them: the latest non-GREEN result of each location the service is checked from.
const HELD_DEPENDENTS_SQL = `select s.id, s.organization_id, s.name, s.endpoint, s.status, s.red_streak, s.failure_streak, s.green_streak, s.flapping,
       s.tags, s.environment, s.locations, s.check_type,
       (select count(*) from service_location_status l
         where l.service_id = s.id and l.status <> 'GREEN' and l.location in (select jsonb_array_elements_text(s.locations)))::int as failing,
       r.id as result_id, r.status as result_status, r.message, r.location, r.agent_id, r.response_time_ms, r.checked_at,
       (select json_agg(json_build_object('id', p.id, 'name', p.name) order by d.position)
          from service_dependencies d join services p on p.id = d.depends_on_id
         where d.service_id = s.id and d.depends_on_id = any(?::uuid[])) as held_by
  from services s
  join lateral (select r.id, r.status, r.message, r.location, r.agent_id, r.response_time_ms, r.checked_at
                  from check_results r where r.service_id = s.id order by r.checked_at desc, r.id desc limit 1) r on true
 where s.id in (select d.service_id from service_dependencies d where d.depends_on_id = any(?::uuid[]))
   and s.status is not null and not s.paused
   and not (s.id = any(?::uuid[]))
   and not exists (select 1 from service_dependencies d join services p on p.id = d.depends_on_id where d.service_id = s.id and p.status = 'RED')
 order by s.id`;

interface HeldRow {
  id: string;
  organization_id: string;
  name: string;
  endpoint: string;
  status: ServiceStatus;
  red_streak: number;
  failure_streak: number;
  green_streak: number;
  flapping: boolean;
  tags: string[] | null;
  environment: string | null;
  locations: string[] | null;
  check_type: string;
  failing: number;
  result_id: string;
  result_status: ServiceStatus;
  message: string;
  location: string;
  agent_id: string;
  response_time_ms: number;
  checked_at: Date | string;
  held_by: HoldingParent[];
}

const uuids = (ids: string[]) => `{${ids.join(',')}}`;

export function createDependencyHoldsRepository(): DependencyHoldsRepository {
  return {
    async redDependencies(tx, serviceIds) {
      const held = new Map<string, HoldingParent[]>();
      if (serviceIds.length === 0) return held;
      const rows = await queryBound<{ service_id: string; id: string; name: string }>(tx, RED_DEPENDENCIES_SQL, [uuids(serviceIds)]);
      for (const r of rows) {
        const list = held.get(r.service_id);
        if (list) list.push({ id: r.id, name: r.name });
        else held.set(r.service_id, [{ id: r.id, name: r.name }]);
      }
      return held;
    },

    async heldDependents(tx, parentIds, excluded) {
      if (parentIds.length === 0) return [];
      const rows = await queryBound<HeldRow>(tx, HELD_DEPENDENTS_SQL, [uuids(parentIds), uuids(parentIds), uuids(excluded)]);
      return rows.map((r) => ({
        serviceId: r.id,
        organizationId: r.organization_id,
        name: r.name,
        endpoint: r.endpoint,
        serviceStatus: r.status,
        failingLocations: Number(r.failing),
        redStreak: Number(r.red_streak),
        failureStreak: Number(r.failure_streak),
        greenStreak: Number(r.green_streak),
        flapping: r.flapping,
        service: { id: r.id, tags: r.tags ?? [], environment: r.environment, locations: r.locations ?? [], checkType: r.check_type },
        result: {
          id: r.result_id,
          status: r.result_status,
          message: r.message,
          location: r.location,
          agentId: r.agent_id,
          responseTimeMs: Number(r.response_time_ms),
          checkedAt: new Date(r.checked_at),
        },
        heldBy: r.held_by ?? [],
      }));
    },
  };
}
