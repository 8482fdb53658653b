// Folds the feed's messages into the data the pages already hold, so a result reaches the
// screen without a request; what cannot be patched in place is marked stale and refetched.
import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { queryKeys } from '../api/query-keys';
import type { LiveMessage, Overview, OverviewRow, Service } from '../api/types';

export function applyLiveMessages(client: QueryClient, org: string, messages: LiveMessage[]): void {
  const rowPatches = new Map<string, (row: OverviewRow) => OverviewRow>();
  const patchRow = (id: string, patch: (row: OverviewRow) => OverviewRow) => {
    const before = rowPatches.get(id);
    rowPatches.set(id, before ? (row) => patch(before(row)) : patch);
  };
  let statusesChanged = false;
  let alertsChanged = false;
  const touchedServices = new Set<string>();

  for (const message of messages) {
    switch (message.type) {
      case 'check_result': {
        const r = message.data;
        touchedServices.add(r.service_id);
        patchRow(r.service_id, (row) => ({
          ...row,
          last_checked_at: r.checked_at,
          last_response_time_ms: r.response_time_ms,
          // A result ends a time without data (the server clears `stale` as it stores it).
          stale: false,
          last_result_at: r.checked_at,
          location_statuses: [
            ...row.location_statuses.filter((l) => l.location !== r.location),
            { location: r.location, status: r.status, checked_at: r.checked_at, response_time_ms: r.response_time_ms },
          ].sort((a, b) => a.location.localeCompare(b.location)),
        }));
        patchQueries<Service>(
          client,
          queryKeys.service(org, r.service_id),
          (s) => ({ ...s, last_checked_at: r.checked_at, last_response_time_ms: r.response_time_ms, stale: false, last_result_at: r.checked_at }),
          { exact: true },
        );
        break;
      }
      case 'service_status': {
        const s = message.data;
        statusesChanged = true;
        touchedServices.add(s.service_id);
        // An older control plane sends no `flapping`: what the page holds stays.
        const flapping = typeof s.flapping === 'boolean' ? { flapping: s.flapping } : {};
        patchRow(s.service_id, (row) => ({ ...row, status: s.status, ...flapping }));
        patchQueries<Service>(client, queryKeys.service(org, s.service_id), (service) => ({ ...service, status: s.status, ...flapping }), { exact: true });
        invalidateDependents(client, org, s.service_id);
        break;
      }
      case 'service_stale': {
        const { service_id: id, stale, last_result_at } = message.data;
        patchRow(id, (row) => ({ ...row, stale, last_result_at }));
        patchQueries<Service>(client, queryKeys.service(org, id), (service) => ({ ...service, stale, last_result_at }), { exact: true });
        break;
      }
      default:
        alertsChanged = true;
    }
  }

  if (rowPatches.size > 0) {
    patchQueries<Overview>(client, queryKeys.servicesOverview(org), (overview) => {
      let changed = false;
      const services = overview.services.map((row) => {
        const patch = rowPatches.get(row.id);
        if (!patch) return row;
        changed = true;
        return patch(row);
      });
      return changed ? { ...overview, services } : undefined;
    });
  }
  for (const id of touchedServices) void client.invalidateQueries({ queryKey: queryKeys.serviceHistory(org, id) });
  if (statusesChanged) {
    void client.invalidateQueries({ queryKey: queryKeys.servicesSummary(org) });
    void client.invalidateQueries({ queryKey: queryKeys.services(org) });
  }
  if (alertsChanged) void client.invalidateQueries({ queryKey: queryKeys.alerts(org) });
}

/** A service's suppressed_by follows its dependencies' statuses: the shown dependents of one that moved refetch. */
function invalidateDependents(client: QueryClient, org: string, serviceId: string): void {
  for (const query of client.getQueryCache().findAll({ queryKey: [org, 'service'] })) {
    const service = query.state.data as Service | undefined;
    if (query.queryKey.length === 3 && service?.depends_on?.includes(serviceId)) void client.invalidateQueries({ queryKey: query.queryKey, exact: true });
  }
}

/**
 * Patches the cached data under `key` in place. Data already marked stale (a change was
 * saved) is left for its refetch: writing it would mark it fresh and hide that change.
 * `patch` answers undefined when it changes nothing, which leaves the data as it was. `exact`:
 * only `key` itself, not the keys below it (a service's history lives below the service).
 */
function patchQueries<T>(client: QueryClient, key: QueryKey, patch: (data: T) => T | undefined, { exact = false } = {}): void {
  for (const query of client.getQueryCache().findAll({ queryKey: key, exact })) {
    if (query.state.isInvalidated || query.state.data === undefined) continue;
    const next = patch(query.state.data as T);
    if (next !== undefined) client.setQueryData(query.queryKey, next);
  }
}
