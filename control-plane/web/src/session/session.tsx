// Who is signed in, in which organization and with which role. Pages ask `useSession()`
// what the user may do and hide or disable what the role cannot.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { api, apiRequest } from '../api/http';
import { queryKeys } from '../api/query-keys';
import type { Organization, Role } from '../api/types';
import { expiryOf, storedSessionOf, tokenStore, type SignInAnswer, type StoredSession } from './token-store';

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

type LoginAnswer = SignInAnswer;

/** How long before its expiry a token is renewed with the refresh token. */
const RENEW_BEFORE_MS = 5 * 60_000;

export interface Session {
  session: StoredSession | null;
  organization: Organization | undefined;
  organizations: Organization[];
  role: Role | undefined;
  /** Members and above change services, rules, alerts and channels. */
  canWrite: boolean;
  /** Admins and above manage members, teams, API keys and agents. */
  canManage: boolean;
  isOwner: boolean;
  signIn(email: string, password: string): Promise<void>;
  createAccount(input: { email: string; password: string; full_name: string }): Promise<void>;
  signOut(): void;
  switchOrganization(organizationId: string): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const session = useSyncExternalStore(tokenStore.subscribe, tokenStore.current);
  const org = session?.organizationId ?? '';

  const organization = useQuery({
    queryKey: queryKeys.organization(org),
    queryFn: () => api.get<Organization>('/organization'),
    enabled: Boolean(session),
    staleTime: 60_000,
  });
  const organizations = useQuery({
    queryKey: queryKeys.organizations(org),
    queryFn: () => api.get<Organization[]>('/organizations'),
    enabled: Boolean(session),
    staleTime: 60_000,
  });

  // A token is renewed shortly before its `exp` while the session lives; one that cannot be
  // renewed ends there: back to sign-in with a message, not a page of errors.
  useEffect(() => {
    const exp = session && expiryOf(session.token);
    if (!session || !exp) return;
    const expire = () => tokenStore.expire('Your session has expired. Sign in again.');
    const renew = async () => {
      try {
        const { body } = await apiRequest<LoginAnswer>('POST', '/auth/refresh', { body: { refresh_token: session.refreshToken, org_id: session.organizationId }, token: null });
        tokenStore.set(storedSessionOf(body, session.email));
      } catch {
        if (expiryOf(session.token)! <= Date.now()) expire();
      }
    };
    const at = session.refreshToken ? exp - RENEW_BEFORE_MS : exp;
    const timer = setTimeout(() => (session.refreshToken ? void renew() : expire()), Math.min(Math.max(at - Date.now(), 0), 2 ** 31 - 1));
    // A failed renewal still ends the session at its expiry.
    const end = session.refreshToken ? setTimeout(expire, Math.min(Math.max(exp - Date.now(), 0), 2 ** 31 - 1)) : undefined;
    return () => {
      clearTimeout(timer);
      clearTimeout(end);
    };
  }, [session]);

  const signIn = useCallback(async (email: string, password: string) => {
    const { body } = await apiRequest<LoginAnswer>('POST', '/auth/login', { body: { email, password }, token: null });
    queryClient.clear();
    tokenStore.set(storedSessionOf(body, email));
  }, [queryClient]);

  const createAccount = useCallback(async (input: { email: string; password: string; full_name: string }) => {
    await apiRequest('POST', '/auth/register', { body: input, token: null });
    await signIn(input.email, input.password);
  }, [signIn]);

  const signOut = useCallback(() => {
    // The server ends the session so that its token, wherever copied, stops working; the
    // dashboard forgets it at once whether or not that answer arrives.
    const token = tokenStore.current()?.token;
    if (token) void apiRequest('DELETE', '/sessions/current', { token, keepSession: true }).catch(() => undefined);
    tokenStore.clear();
    queryClient.clear();
  }, [queryClient]);

  const switchOrganization = useCallback(async (organizationId: string) => {
    const current = tokenStore.current();
    if (!current || organizationId === current.organizationId) return;
    const answer = await api.post<LoginAnswer>(`/organizations/${organizationId}/token`);
    tokenStore.set({ ...current, token: answer.token, organizationId: answer.org_id });
  }, []);

  const value = useMemo<Session>(() => {
    const role = organization.data?.role;
    const rank = role ? RANK[role] : -1;
    return {
      session,
      organization: organization.data,
      organizations: organizations.data ?? [],
      role,
      canWrite: rank >= RANK.member,
      canManage: rank >= RANK.admin,
      isOwner: rank >= RANK.owner,
      signIn,
      createAccount,
      signOut,
      switchOrganization,
    };
  }, [session, organization.data, organizations.data, signIn, createAccount, signOut, switchOrganization]);

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The current organization's id, for query keys; pages only render while signed in. */
export function useOrg(): string {
  return useSession().session?.organizationId ?? '';
}
