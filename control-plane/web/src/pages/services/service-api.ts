// Reads and writes of one service and its history, on the query keys the live feed updates.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import type { CheckResult, Service } from '../../api/types';
import { useOrg } from '../../session/session';
import type { BulkAnswer, BulkRequest, Period, TestRunResult, Uptime } from './types';

export function useService(id: string | undefined) {
  const org = useOrg();
  return useQuery({
    queryKey: queryKeys.service(org, id ?? ''),
    queryFn: () => api.get<Service>(`/services/${id}`),
    enabled: Boolean(id),
  });
}

/**
 * Everything that lists services (overview, summary, list, and the plain lists forms choose
 * from: depends on, status pages, maintenance windows) refetches after a change.
 */
function useInvalidateServices() {
  const org = useOrg();
  const client = useQueryClient();
  return (id?: string) => {
    void client.invalidateQueries({ queryKey: [org, 'services'] });
    void client.invalidateQueries({ queryKey: queryKeys.resource(org, '/services') });
    if (id) void client.invalidateQueries({ queryKey: queryKeys.service(org, id) });
  };
}

export function useSaveService() {
  const invalidate = useInvalidateServices();
  return useMutation({
    mutationFn: ({ id, body }: { id?: string; body: () => Record<string, unknown> }) =>
      id ? api.put<Service>(`/services/${id}`, body()) : api.post<Service>('/services', body()),
    onSuccess: (service) => invalidate(service.id),
  });
}

export function useDeleteService() {
  const org = useOrg();
  const client = useQueryClient();
  const invalidate = useInvalidateServices();
  return useMutation({
    mutationFn: (id: string) => api.del(`/services/${id}`),
    onSuccess: (_, id) => {
      client.removeQueries({ queryKey: queryKeys.service(org, id) });
      invalidate();
    },
  });
}

/** Pauses or resumes one service: its checks stop or start again, its status is kept. */
export function usePauseService(id: string) {
  const invalidate = useInvalidateServices();
  return useMutation({
    mutationFn: (paused: boolean) => api.put<Service>(`/services/${id}`, { paused }),
    onSuccess: () => invalidate(id),
  });
}

/** One action on many services (POST /services/bulk); every list and the services it names refetch. */
export function useBulkServices() {
  const org = useOrg();
  const client = useQueryClient();
  const invalidate = useInvalidateServices();
  return useMutation({
    mutationFn: (request: BulkRequest) => api.post<BulkAnswer>('/services/bulk', request),
    onSuccess: (answer) => {
      invalidate();
      for (const { id, outcome } of answer.results) if (outcome === 'deleted') client.removeQueries({ queryKey: queryKeys.service(org, id) });
      // Any service page held in the cache may show one of them: one pass over them all.
      void client.invalidateQueries({ queryKey: [org, 'service'] });
    },
  });
}

/** Runs the form's check once on an agent without saving it (POST /services/test). */
export function useTestService() {
  return useMutation({ mutationFn: (body: () => Record<string, unknown>) => api.post<TestRunResult>('/services/test', body()) });
}

export function useCheckNow(id: string) {
  return useMutation({ mutationFn: () => api.post<{ status: string }>(`/services/${id}/check`) });
}

export function useUptime(id: string, period: Period) {
  const org = useOrg();
  return useQuery({
    queryKey: [...queryKeys.serviceHistory(org, id), 'uptime', period],
    queryFn: () => api.get<Uptime>(`/services/${id}/uptime`, { period }),
  });
}

/** One page of the checks log, newest first; `before` pages back in time. */
export function useChecks(id: string, query: { limit: number; before?: string; location?: string }, options: { enabled?: boolean } = {}) {
  const org = useOrg();
  return useQuery({
    queryKey: [...queryKeys.serviceHistory(org, id), 'checks', query],
    queryFn: () => api.get<CheckResult[]>(`/services/${id}/checks`, query),
    placeholderData: keepPreviousData,
    enabled: options.enabled ?? true,
  });
}
