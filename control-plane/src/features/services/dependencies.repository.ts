// Persistence of service dependencies (service_dependencies: one row per edge, in the order
// the client gave). Edges change under a lock on the organization row, so two concurrent
// changes cannot each add half of a cycle; everything else reads them as they are.
import type { PooledSql } from '../../db/pooled-sql.js';
import type { DependencyGraph } from './dependency-graph.js';

export interface ServiceRef {
  id: string;
  name: string;
}

export interface ServiceDependencies {
  /** The services it depends on, in the order given. */
  dependsOn: string[];
  /** Those of them RED now: the service's alerts are held. */
  suppressedBy: ServiceRef[];
}

export const noDependencies = (): ServiceDependencies => ({ dependsOn: [], suppressedBy: [] });

export interface DependenciesRepository {
  /** The dependencies of each of the organization's services that has any (one statement, whatever the count). */
  forServices(organizationId: string, serviceIds: string[]): Promise<Map<string, ServiceDependencies>>;
  /** The organization's edges and the names `check` may need, read without a lock. */
  graph(organizationId: string, named: string[]): Promise<DependencyGraph>;
  /**
   * Replaces the service's dependencies if `check` accepts them against the organization's
   * graph read under the organization's lock (it throws to refuse).
   */
  replace(organizationId: string, serviceId: string, dependsOn: string[], check: (graph: DependencyGraph) => void): Promise<void>;
  /**
   * Gives a new service (nothing depends on it yet, so no cycle) its dependencies; one deleted
   * since they were checked is left out, as its deletion would have dropped the edge.
   */
  addForNew(organizationId: string, serviceId: string, dependsOn: string[]): Promise<void>;
}

interface EdgeRow {
  service_id: string;
  id: string;
  name: string;
  status: string | null;
}

const EDGES = 'select d.service_id, p.id, p.name, p.status from service_dependencies d join services p on p.id = d.depends_on_id';

export function createDependenciesRepository(sql: PooledSql): DependenciesRepository {
  const readGraph = async (query: PooledSql['query'], organizationId: string, named: string[]): Promise<DependencyGraph> => {
    const edges = await query<{ service_id: string; depends_on_id: string }>(
      `select d.service_id, d.depends_on_id from service_dependencies d join services s on s.id = d.service_id
        where s.organization_id = $1 order by d.service_id, d.position`,
      [organizationId],
    );
    const names = await query<{ id: string; name: string }>(
      `select s.id, s.name from services s where s.organization_id = $1
          and (s.id = any($2::uuid[]) or exists (select 1 from service_dependencies d where d.service_id = s.id or d.depends_on_id = s.id))`,
      [organizationId, named],
    );
    const graph: DependencyGraph = { edges: new Map(), names: new Map(names.map((n) => [n.id, n.name])) };
    for (const e of edges) {
      const list = graph.edges.get(e.service_id);
      if (list) list.push(e.depends_on_id);
      else graph.edges.set(e.service_id, [e.depends_on_id]);
    }
    return graph;
  };

  return {
    async forServices(organizationId, serviceIds) {
      const found = new Map<string, ServiceDependencies>();
      if (serviceIds.length === 0) return found;
      // A page of the list is read by organization: the edges are few, and naming 2,000 ids
      // cost the list 20 ms more than the whole organization's edges.
      const rows =
        serviceIds.length === 1
          ? await sql.query<EdgeRow>(`${EDGES} where d.service_id = $1 order by d.position`, [serviceIds[0]])
          : await sql.query<EdgeRow>(`${EDGES} join services s on s.id = d.service_id where s.organization_id = $1 order by d.service_id, d.position`, [organizationId]);
      const wanted = new Set(serviceIds);
      for (const r of rows) {
        if (!wanted.has(r.service_id)) continue;
        let deps = found.get(r.service_id);
        if (!deps) found.set(r.service_id, (deps = { dependsOn: [], suppressedBy: [] }));
        deps.dependsOn.push(r.id);
        if (r.status === 'RED') deps.suppressedBy.push({ id: r.id, name: r.name });
      }
      return found;
    },

    graph: (organizationId, named) => readGraph(sql.query, organizationId, named),

    async replace(organizationId, serviceId, dependsOn, check) {
      await sql.transaction(async (query) => {
        // NO KEY UPDATE: creates of services (which take KEY SHARE through their foreign key) go on.
        await query('select 1 from organizations where id = $1 for no key update', [organizationId]);
        check(await readGraph(query, organizationId, [serviceId, ...dependsOn]));
        await query('delete from service_dependencies where service_id = $1', [serviceId]);
        await insertEdges(query, organizationId, serviceId, dependsOn);
      });
    },

    async addForNew(organizationId, serviceId, dependsOn) {
      await insertEdges(sql.query, organizationId, serviceId, dependsOn);
    },
  };
}

async function insertEdges(query: PooledSql['query'], organizationId: string, serviceId: string, dependsOn: string[]): Promise<void> {
  if (dependsOn.length === 0) return;
  await query(
    `insert into service_dependencies (service_id, depends_on_id, position)
     select $1, p.id, d.position - 1 from unnest($3::uuid[]) with ordinality as d (id, position)
       join services p on p.id = d.id and p.organization_id = $2`,
    [serviceId, organizationId, dependsOn],
  );
}
