// Hooks for the API's resource groups (list, create, update, delete on one base path), so
// every page reads and writes the same way and a change refreshes the lists that show it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useOrg } from '../session/session';
import { api, type Query } from './http';
import { queryKeys } from './query-keys';

export function useResourceList<T>(path: string, query?: Query, options: { enabled?: boolean; refetchInterval?: number } = {}) {
  const org = useOrg();
  return useQuery({
    queryKey: [...queryKeys.resource(org, path), query ?? {}],
    queryFn: () => api.get<T[]>(path, query),
    enabled: options.enabled ?? true,
    refetchInterval: options.refetchInterval,
  });
}

/** Creates (no id) or updates (id) one item of `path`; lists of that path refetch after. */
export function useSaveResource<T>(path: string) {
  const org = useOrg();
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id?: string; body: unknown }) => (id ? api.put<T>(`${path}/${id}`, body) : api.post<T>(path, body)),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.resource(org, path) }),
  });
}

export function useDeleteResource(path: string) {
  const org = useOrg();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.del(`${path}/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.resource(org, path) }),
  });
}
