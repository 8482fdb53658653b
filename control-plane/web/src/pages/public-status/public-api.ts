// What the public page asks the API: the page, its history, its password, a subscription.
// A signed-in member's token goes along (a members-only page needs it), but a 401 here is
// the page's password, never the end of the dashboard session.
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { apiRequest, type Query } from '../../api/http';
import type { PublicHistory, PublicStatusPage } from './public-types';

/** The server caches the page for 30 s; asking more often would show nothing new. */
const REFRESH_MS = 60_000;
const HISTORY_PAGE = 10;

const base = (slug: string) => `/status-pages/${encodeURIComponent(slug)}`;

async function publicGet<T>(path: string, query?: Query): Promise<T> {
  return (await apiRequest<T>('GET', path, { query, keepSession: true })).body;
}

export const publicPageKey = (slug: string) => ['public-status', slug] as const;

export function usePublicPage(slug: string) {
  return useQuery({
    queryKey: publicPageKey(slug),
    queryFn: () => publicGet<PublicStatusPage>(`${base(slug)}/public`),
    refetchInterval: REFRESH_MS,
  });
}

export function usePublicHistory(slug: string) {
  return useInfiniteQuery({
    queryKey: [...publicPageKey(slug), 'history'],
    queryFn: ({ pageParam }) => publicGet<PublicHistory>(`${base(slug)}/public/history`, { before: pageParam, limit: HISTORY_PAGE }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_before ?? undefined,
  });
}

export async function unlockPage(slug: string, password: string): Promise<void> {
  await apiRequest('POST', `${base(slug)}/unlock`, { body: { password }, token: null });
}

export type SubscribeBody = { email: string; component_ids?: string[] } | { webhook_url: string; component_ids?: string[] };

export async function subscribe(slug: string, body: SubscribeBody): Promise<string> {
  return (await apiRequest<{ message: string }>('POST', `${base(slug)}/subscribe`, { body, token: null })).body.message;
}
