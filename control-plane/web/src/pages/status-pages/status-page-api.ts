// One status page and the names of the services it shows, read once for the detail and
// incident pages; under the list's query key, so saving the page refreshes both.
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useResourceList } from '../../api/resources';
import type { Service } from '../../api/types';
import { useOrg } from '../../session/session';
import type { NamedService } from './incidents/affected-services';
import { STATUS_PAGES_PATH, type StatusPage } from './status-page-types';

export function useStatusPage(id: string) {
  const org = useOrg();
  return useQuery({
    queryKey: [...queryKeys.resource(org, STATUS_PAGES_PATH), id],
    queryFn: () => api.get<StatusPage>(`${STATUS_PAGES_PATH}/${id}`),
  });
}

/** The page's services with their names, in page order; a deleted one is left out. */
export function usePageServices(page: StatusPage | undefined): NamedService[] {
  const services = useResourceList<Service>('/services', { sort: 'name', limit: 1000 }, { enabled: page !== undefined });
  const names = new Map((services.data ?? []).map((s) => [s.id, s.name]));
  return (page?.service_ids ?? []).flatMap((id) => {
    const name = names.get(id);
    return name === undefined ? [] : [{ id, name }];
  });
}
