// Whether a service may depend on the services it names: pure, over the organization's
// dependency edges as the repository read them under the organization's lock.
import { validationFailed } from '../../errors.js';

export interface DependencyGraph {
  /** Each service of the organization that depends on something, and what it depends on. */
  edges: Map<string, string[]>;
  /** Names of the organization's services the check may mention (those named and those on an edge). */
  names: Map<string, string>;
}

/**
 * Throws a 400 (details path depends_on) unless `serviceId` may depend on each of `dependsOn`:
 * not on itself, only on services of its organization (`graph.names`), and without closing a cycle.
 */
export function assertDependenciesAllowed(graph: DependencyGraph, serviceId: string, serviceName: string, dependsOn: readonly string[]): void {
  const refuse = (message: string) => validationFailed(`depends_on ${message}`, [{ path: 'depends_on', message }]);
  if (dependsOn.includes(serviceId)) throw refuse('must not name the service itself');
  const unknown = dependsOn.find((id) => !graph.names.has(id));
  if (unknown) throw refuse(`names service ${unknown}, which is not a service of this organization`);
  const cycle = findCycle(graph.edges, serviceId, dependsOn);
  if (cycle) {
    const name = (id: string) => `${id === serviceId ? serviceName : (graph.names.get(id) ?? id)} (${id})`;
    throw refuse(`would make a cycle: ${cycle.map(name).join(' → ')}`);
  }
}

/**
 * The cycle `serviceId` would close by depending on `dependsOn` (its own edges replaced),
 * from the service back to itself; null when there is none. Depth-first over the edges,
 * each service visited once.
 */
export function findCycle(edges: Map<string, string[]>, serviceId: string, dependsOn: readonly string[]): string[] | null {
  const next = (id: string) => (id === serviceId ? dependsOn : (edges.get(id) ?? []));
  const visited = new Set<string>();
  const path: string[] = [serviceId];
  const walk = (id: string): boolean => {
    for (const parent of next(id)) {
      if (parent === serviceId) return true;
      if (visited.has(parent)) continue;
      visited.add(parent);
      path.push(parent);
      if (walk(parent)) return true;
      path.pop();
    }
    return false;
  };
  return walk(serviceId) ? [...path, serviceId] : null;
}
