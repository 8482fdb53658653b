// Reading and writing one page's incidents and their updates. Every change refetches the
// page's incident list and the incident itself, which live under one query key.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../api/http';
import { queryKeys } from '../../../api/query-keys';
import { useOrg } from '../../../session/session';
import { incidentsPath, type Incident, type IncidentBody, type UpdateBody } from './incident-types';

export function useIncident(pageId: string, incidentId: string) {
  const org = useOrg();
  return useQuery({
    queryKey: [...queryKeys.resource(org, incidentsPath(pageId)), incidentId],
    queryFn: () => api.get<Incident>(`${incidentsPath(pageId)}/${incidentId}`),
  });
}

function useIncidentChange<A, R>(pageId: string, change: (base: string, args: A) => Promise<R>) {
  const org = useOrg();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (args: A) => change(incidentsPath(pageId), args),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.resource(org, incidentsPath(pageId)) }),
  });
}

export const useCreateIncident = (pageId: string) => useIncidentChange(pageId, (base, body: IncidentBody) => api.post<Incident>(base, body));

export const useEditIncident = (pageId: string, incidentId: string) =>
  useIncidentChange(pageId, (base, body: Partial<Omit<IncidentBody, 'message'>>) => api.put<Incident>(`${base}/${incidentId}`, body));

export const useDeleteIncident = (pageId: string) => useIncidentChange(pageId, (base, incidentId: string) => api.del(`${base}/${incidentId}`));

export const usePostUpdate = (pageId: string, incidentId: string) => useIncidentChange(pageId, (base, body: UpdateBody) => api.post(`${base}/${incidentId}/updates`, body));

export const useEditUpdate = (pageId: string, incidentId: string) =>
  useIncidentChange(pageId, (base, { updateId, body }: { updateId: string; body: Partial<UpdateBody> }) => api.put(`${base}/${incidentId}/updates/${updateId}`, body));

export const useDeleteUpdate = (pageId: string, incidentId: string) => useIncidentChange(pageId, (base, updateId: string) => api.del(`${base}/${incidentId}/updates/${updateId}`));
