// What the location pages read: the agents (by location), the locations services name (the
// summary), and per location how many services it checks (the overview's total, one row).
import { useQueries, useQuery } from '@tanstack/react-query';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useResourceList } from '../../api/resources';
import type { Overview, ServicesSummary } from '../../api/types';
import { useOrg } from '../../session/session';
import { AGENT_REFRESH_MS, EMBEDDED_LOCATION, type Agent } from '../agents/agent-types';

export function useAgents() {
  return useResourceList<Agent>('/agents', undefined, { refetchInterval: AGENT_REFRESH_MS });
}

export function useServicesSummary() {
  const org = useOrg();
  return useQuery({
    queryKey: [...queryKeys.servicesSummary(org), 'whole organization'],
    queryFn: () => api.get<ServicesSummary>('/services/summary'),
  });
}

/** Every location known from agents or services, the embedded one first, then by name. */
export function knownLocations(agents: Agent[], summary: ServicesSummary | undefined): string[] {
  const names = new Set([EMBEDDED_LOCATION, ...(summary?.locations ?? []), ...agents.map((a) => a.location)]);
  return [...names].sort((a, b) => (a === EMBEDDED_LOCATION ? -1 : b === EMBEDDED_LOCATION ? 1 : a.localeCompare(b)));
}

/** The overview of one location's services; below the overview key so live results patch it. */
export function useLocationServices(location: string, limit?: number) {
  const org = useOrg();
  return useQuery({
    queryKey: [...queryKeys.servicesOverview(org), { location, limit, sort: 'status' }],
    queryFn: () => api.get<Overview>('/services/overview', { location, limit, sort: 'status' }),
  });
}

/** How many services each location checks, by location name (undefined while loading). */
export function useServiceCounts(locations: string[]): Map<string, number | undefined> {
  const org = useOrg();
  const counts = useQueries({
    queries: locations.map((location) => ({
      queryKey: [...queryKeys.servicesOverview(org), { location, limit: 1, sort: 'status' }],
      queryFn: () => api.get<Overview>('/services/overview', { location, limit: 1, sort: 'status' }),
    })),
  });
  return new Map(locations.map((location, i) => [location, counts[i]?.data?.total]));
}
