// Reading and changing silences. A change re-marks the organization's open alerts at once
// (the API applies it in the same request), so the alerts refetch with the silences.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useOrg } from '../../session/session';
import { SILENCES_PATH, type Silence, type SilenceBody, type SilenceListState } from './silence-types';

export function useSilences(state: SilenceListState = 'current') {
  const org = useOrg();
  return useQuery({
    queryKey: [...queryKeys.resource(org, SILENCES_PATH), { state }],
    queryFn: () => api.get<Silence[]>(SILENCES_PATH, { state }),
  });
}

function useRefresh() {
  const org = useOrg();
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: queryKeys.resource(org, SILENCES_PATH) });
    void client.invalidateQueries({ queryKey: queryKeys.alerts(org) });
  };
}

/** Creates (no id) or changes (id: only the fields sent) a silence. */
export function useSaveSilence() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, body }: { id?: string; body: Partial<SilenceBody> }) => (id ? api.put<Silence>(`${SILENCES_PATH}/${id}`, body) : api.post<Silence>(SILENCES_PATH, body)),
    onSuccess: refresh,
  });
}

/** Ends a silence now: what it kept quiet and still fires notifies. */
export function useExpireSilence() {
  const refresh = useRefresh();
  return useMutation({ mutationFn: (id: string) => api.post<Silence>(`${SILENCES_PATH}/${id}/expire`), onSuccess: refresh });
}

export function useDeleteSilence() {
  const refresh = useRefresh();
  return useMutation({ mutationFn: (id: string) => api.del(`${SILENCES_PATH}/${id}`), onSuccess: refresh });
}
