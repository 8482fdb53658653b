// Query keys shared by the pages and by the live feed that updates their data in place.
// Every key starts with the organization, so switching organizations never mixes data.
export const queryKeys = {
  organization: (org: string) => [org, 'organization'] as const,
  organizations: (org: string) => [org, 'organizations'] as const,
  servicesOverview: (org: string) => [org, 'services', 'overview'] as const,
  servicesSummary: (org: string) => [org, 'services', 'summary'] as const,
  services: (org: string) => [org, 'services', 'list'] as const,
  service: (org: string, id: string) => [org, 'service', id] as const,
  /** Everything about one service (checks, uptime, metrics) below its own key. */
  serviceHistory: (org: string, id: string) => [org, 'service', id, 'history'] as const,
  alerts: (org: string) => [org, 'alerts'] as const,
  /** A resource group's list: 'alert-rules', 'agents', 'heartbeats', ... (its API path). */
  resource: (org: string, path: string) => [org, 'resource', path] as const,
};
