// Persistence of services. A plan's cap is enforced under a row lock on the organization, so
// concurrent creates cannot overshoot it. Rows are read by hand, not hydrated by the ORM.
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { PooledSql } from '../../db/pooled-sql.js';
import { AppError, notFound } from '../../errors.js';
import type { Role } from '../organizations/membership.entity.js';
import { PLANS, planLimits } from '../organizations/plans.js';
import { ServiceEntity, type ServiceRecord } from './service.entity.js';
import type { ServiceDependencies } from './dependencies.repository.js';
import type { ServiceSort } from './services.schema.js';
import type { CheckType } from '../../../../shared/src/check-types.js';
import type { ServiceStatus } from '../../../../shared/src/status.js';

export type NewService = Omit<ServiceRecord, 'status' | 'lastCheckedAt' | 'lastResponseTimeMs' | 'paused' | 'stale' | 'flapping' | 'configVersion' | 'createdAt' | 'updatedAt'> & {
  /** False unless given. */
  paused?: boolean;
};
export type ServiceChanges = Partial<Omit<ServiceRecord, 'id' | 'organizationId' | 'createdAt' | 'updatedAt' | 'configVersion'>>;

export interface ServiceFilters {
  /** PENDING: no result yet. */
  status?: ServiceStatus | 'PENDING';
  tag?: string;
  checkType?: string;
  environment?: string;
  /** Among the service's locations. */
  location?: string;
  /** A case-insensitive substring of the name, endpoint, description or a tag. */
  text?: string;
}

export interface ServicePage {
  sort: ServiceSort;
  /** Absent: every matching service. */
  limit?: number;
  offset: number;
}

/** One service's new values in a change of many (a bulk action); fields left out keep theirs. */
export interface ServiceUpdate {
  id: string;
  paused?: boolean;
  tags?: string[];
  locations?: string[];
  /** Whether agents must hear about it (its config version grows). */
  bumpVersion: boolean;
}

export interface ServiceChangePlan {
  updates: ServiceUpdate[];
  /** Ids of services to delete. */
  deletes: string[];
}

/** What a change of many found (locked), and the rows it changed or deleted. */
export interface ServicesChanged {
  found: ServiceRecord[];
  updated: ServiceRecord[];
  deleted: ServiceRecord[];
}

/** A page of services and how many matched before paging. */
export interface ServiceList {
  total: number;
  services: ServiceRecord[];
}

export interface ServicesRepository {
  /** Inserts unless the organization's plan is full (PLAN_LIMIT_REACHED). */
  insertWithinPlan(service: NewService): Promise<ServiceRecord>;
  /** The service, its dependencies and the user's role in its organization; null when not a member. */
  findForUser(serviceId: string, userId: string): Promise<{ service: ServiceRecord; dependencies: ServiceDependencies; role: Role } | null>;
  list(organizationId: string, filters: ServiceFilters, page: ServicePage): Promise<ServiceList>;
  update(serviceId: string, changes: ServiceChanges, bumpVersion: boolean): Promise<ServiceRecord>;
  delete(serviceId: string): Promise<void>;
  /** Every service checked from `location` and not paused, across organizations (agent snapshots). */
  listForLocation(location: string): Promise<ServiceRecord[]>;
  findById(serviceId: string): Promise<ServiceRecord | null>;
  /** The services among `serviceIds`, of any organization (the other replicas' bulk changes). */
  findByIds(serviceIds: string[]): Promise<ServiceRecord[]>;
  /** The organization's services among `serviceIds`; others' and unknown ids are left out. */
  findMany(organizationId: string, serviceIds: string[]): Promise<ServiceRecord[]>;
  /**
   * In one transaction: locks the organization's services among `serviceIds`, asks `plan` what
   * to do with them (it may throw to change nothing), and does it: one statement for every
   * update and one for every delete, whatever the number of services.
   */
  changeMany(organizationId: string, serviceIds: string[], plan: (found: ServiceRecord[]) => ServiceChangePlan): Promise<ServicesChanged>;
}

export function createServicesRepository(em: () => EntityManager, sql: PooledSql): ServicesRepository {
  const findForUser = sql.prepared('service_for_user', FIND_FOR_USER);
  return {
    async insertWithinPlan(service) {
      // An uncapped organization takes one statement and no lock: the cap's row lock would
      // serialize every create of the organization for nothing.
      const [uncapped] = await sql.query(
        `${INSERT} select ${VALUES} from organizations o where o.id = $2 and o.plan in (select jsonb_array_elements_text($14::jsonb)) returning *`,
        [...valuesOf(service), JSON.stringify(UNCAPPED_PLANS)],
      );
      if (uncapped) return toServiceRecord(uncapped);
      return sql.transaction(async (query) => {
        const [org] = await query<{ plan: string }>('select plan from organizations where id = $1 for update', [service.organizationId]);
        if (!org) throw notFound('organization');
        const { maxServices } = planLimits(org.plan);
        if (maxServices !== null) {
          const [counted] = await query<{ count: number }>('select count(*)::int as count from services where organization_id = $1', [service.organizationId]);
          if (counted!.count >= maxServices) {
            throw new AppError(
              'PLAN_LIMIT_REACHED',
              `the ${org.plan} plan allows at most ${maxServices} services; delete one or upgrade the plan`,
            );
          }
        }
        const [row] = await query(`${INSERT} values (${VALUES}) returning *`, valuesOf(service));
        return toServiceRecord(row!);
      });
    },

    async findForUser(serviceId, userId) {
      // One statement for the row, its dependencies' ids and the access check: the hot read of
      // GET /services/{id}; a second only for a service that has dependencies.
      const [row] = await findForUser([userId, serviceId]);
      if (!row?.role) return null;
      const dependsOn = (row.depends_on as string[] | null) ?? [];
      const red = dependsOn.length === 0 ? [] : await sql.query<{ id: string; name: string }>("select id, name from services where id = any($1::uuid[]) and status = 'RED'", [dependsOn]);
      const suppressedBy = dependsOn.flatMap((id) => red.filter((p) => p.id === id));
      return { service: toServiceRecord(row), dependencies: { dependsOn, suppressedBy }, role: row.role as Role };
    },

    async list(organizationId, filters, page) {
      const { where, params } = matching(organizationId, filters);
      const rows = em().execute<Record<string, unknown>[]>(`select ${COLUMNS_OF_S} from services s where ${where} order by ${ORDER[page.sort]} limit ? offset ?`, [
        ...params, page.limit ?? null, page.offset,
      ]);
      // Every match, unpaged (the dashboard's list): the rows are the count, and the statement
      // that would count them again read every row of the organization a second time.
      if (page.limit === undefined && page.offset === 0) {
        const all = await rows;
        return { total: all.length, services: all.map(toServiceRecord) };
      }
      // A count of its own beside the page: a window count(*) over () would be lost with a page past the end.
      const [paged, counted] = await Promise.all([rows, em().execute<{ total: number }[]>(`select count(*)::int as total from services s where ${where}`, params)]);
      return { total: counted[0]?.total ?? 0, services: paged.map(toServiceRecord) };
    },

    async update(serviceId, changes, bumpVersion) {
      // The row lock keeps concurrent edits from handing out the same config version.
      return em().transactional(async (tx) => {
        const service = await tx.findOneOrFail(ServiceEntity, serviceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
        tx.assign(service, changes);
        if (bumpVersion) service.configVersion = service.configVersion + 1;
        return service;
      });
    },

    async delete(serviceId) {
      await em().nativeDelete(ServiceEntity, { id: serviceId });
    },

    async listForLocation(location) {
      const rows = await em().execute<Record<string, unknown>[]>('select * from services where locations @> ?::jsonb and not paused order by created_at, id', [
        JSON.stringify([location]),
      ]);
      return rows.map(toServiceRecord);
    },

    async findById(serviceId) {
      const [row] = await em().execute<Record<string, unknown>[]>('select * from services where id = ?', [serviceId]);
      return row ? toServiceRecord(row) : null;
    },

    async findByIds(serviceIds) {
      return (await sql.query('select * from services where id = any($1::uuid[])', [serviceIds])).map(toServiceRecord);
    },

    async findMany(organizationId, serviceIds) {
      return (await sql.query('select * from services where id = any($1::uuid[]) and organization_id = $2', [serviceIds, organizationId])).map(toServiceRecord);
    },

    async changeMany(organizationId, serviceIds, plan) {
      return sql.transaction(async (query) => {
        // Locked in id order, as ingest locks services, so that the two cannot deadlock.
        const found = (await query('select * from services where id = any($1::uuid[]) and organization_id = $2 order by id for update', [serviceIds, organizationId])).map(
          toServiceRecord,
        );
        const { updates, deletes } = plan(found);
        const updated = updates.length === 0 ? [] : await query(UPDATE_MANY, [JSON.stringify(updates.map(({ bumpVersion, ...u }) => ({ ...u, bump: bumpVersion })))]);
        const deleted = deletes.length === 0 ? [] : await query('delete from services where id = any($1::uuid[]) and organization_id = $2 returning *', [deletes, organizationId]);
        return { found, updated: updated.map(toServiceRecord), deleted: deleted.map(toServiceRecord) };
      });
    },
  };
}

// Each row's new values from one JSON document: a field left out (null) keeps its value.
const UPDATE_MANY = `update services s
    set paused = coalesce(c.paused, s.paused), tags = coalesce(c.tags, s.tags), locations = coalesce(c.locations, s.locations),
        config_version = s.config_version + case when c.bump then 1 else 0 end, updated_at = now()
   from jsonb_to_recordset($1::jsonb) as c (id uuid, paused boolean, tags jsonb, locations jsonb, bump boolean)
  where s.id = c.id
  returning s.*`;

/** The columns toServiceRecord reads, of the services row aliased `s`. */
const COLUMNS_OF_S = [
  'id', 'organization_id', 'name', 'description', 'environment', 'endpoint', 'check_type', 'check_interval_seconds', 'timeout_seconds',
  'tags', 'locations', 'options', 'status', 'last_checked_at', 'last_response_time_ms', 'paused', 'stale', 'flapping', 'config_version', 'created_at', 'updated_at',
].map((c) => `s.${c}`).join(', ');

// The row by its primary key, the user's role (null: not a member) and its dependencies' ids
// from their primary keys. Subqueries, not a join: joined with memberships, the planner may
// walk services by organization and filter on the id, reading every row (and dead row) of the
// organization index. The ids only: a join for the RED ones in the same statement cost P5 a
// quarter of its requests per second, for the few services that have dependencies.
const FIND_FOR_USER = `select ${COLUMNS_OF_S},
    (select m.role from memberships m where m.organization_id = s.organization_id and m.user_id = $1) as role,
    (select array_agg(d.depends_on_id order by d.position) from service_dependencies d where d.service_id = s.id) as depends_on
  from services s where s.id = $2`;

const INSERT =
  'insert into services (id, organization_id, name, description, environment, endpoint, check_type, check_interval_seconds, timeout_seconds, tags, locations, options, paused)';
const VALUES = '$1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12::jsonb, $13';
const UNCAPPED_PLANS = Object.entries(PLANS).filter(([, plan]) => plan.maxServices === null).map(([name]) => name);

function valuesOf(s: NewService): unknown[] {
  return [
    s.id, s.organizationId, s.name, s.description, s.environment, s.endpoint, s.checkType, s.checkIntervalSeconds, s.timeoutSeconds,
    JSON.stringify(s.tags), JSON.stringify(s.locations), JSON.stringify(s.options), s.paused ?? false,
  ];
}

/**
 * A services row as the entity reads it. By hand: the ORM's hydration costs about 30 µs a row,
 * most of a 2,000-service answer. The driver parses jsonb and integers; timestamps and doubles come as text.
 */
function toServiceRecord(r: Record<string, unknown>): ServiceRecord {
  return {
    id: r.id as string,
    organizationId: r.organization_id as string,
    name: r.name as string,
    description: r.description as string | null,
    environment: r.environment as string | null,
    endpoint: r.endpoint as string,
    checkType: r.check_type as CheckType,
    checkIntervalSeconds: r.check_interval_seconds as number,
    timeoutSeconds: r.timeout_seconds as number,
    tags: r.tags as string[],
    locations: r.locations as string[],
    options: r.options as Record<string, unknown>,
    status: r.status as ServiceStatus | null,
    lastCheckedAt: r.last_checked_at === null ? null : new Date(r.last_checked_at as string),
    lastResponseTimeMs: r.last_response_time_ms === null ? null : Number(r.last_response_time_ms),
    paused: r.paused as boolean,
    stale: r.stale === true,
    flapping: r.flapping === true,
    configVersion: r.config_version as number,
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}

// Ties fall back to the id, so pages never overlap or skip a service.
const ORDER: Record<ServiceSort, string> = {
  created_at: 's.created_at, s.id',
  name: 'lower(s.name), s.name, s.id',
  status: `case s.status when 'RED' then 0 when 'YELLOW' then 1 when 'GREEN' then 2 else 3 end, lower(s.name), s.name, s.id`,
};

/** The where clause of the organization's services that pass every filter (AND), with its bindings. */
function matching(organizationId: string, filters: ServiceFilters): { where: string; params: unknown[] } {
  const clauses = ['s.organization_id = ?'];
  const params: unknown[] = [organizationId];
  const add = (clause: string, ...values: unknown[]) => {
    clauses.push(clause);
    params.push(...values);
  };
  if (filters.status === 'PENDING') clauses.push('s.status is null');
  else if (filters.status) add('s.status = ?', filters.status);
  if (filters.checkType) add('s.check_type = ?', filters.checkType);
  if (filters.environment) add('s.environment = ?', filters.environment);
  if (filters.tag) add('s.tags @> ?::jsonb', JSON.stringify([filters.tag]));
  if (filters.location) add('s.locations @> ?::jsonb', JSON.stringify([filters.location]));
  if (filters.text) {
    // strpos, not like: the text is matched literally, % and _ included.
    add(
      `(strpos(lower(s.name), lower(?)) > 0 or strpos(lower(s.endpoint), lower(?)) > 0 or strpos(lower(coalesce(s.description, '')), lower(?)) > 0
        or exists (select 1 from jsonb_array_elements_text(s.tags) as t (tag) where strpos(lower(t.tag), lower(?)) > 0))`,
      ...Array(4).fill(filters.text),
    );
  }
  return { where: clauses.join(' and '), params };
}
