// Who is signed in, in which organization and with which role. Pages ask `useSession()`
// what the user may do and hide or disable what the role cannot.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useSyncExternalStore, type ReactNode } from 'react';
import { api, apiRequest } from '../api/http';
import { queryKeys } from '../api/query-keys';
import type { Organization, Role } from '../api/types';
import { expiryOf, tokenStore, type StoredSession } from './token-store';

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

interface LoginAnswer {
  token: string;
  user_id: string;
  org_id: string;
}

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

  // A token ends at its `exp`: back to sign-in with a message, not a page of errors.
  useEffect(() => {
    const exp = session && expiryOf(session.token);
    if (!exp) return;
    const timer = setTimeout(() => tokenStore.expire('Your session has expired. Sign in again.'), Math.min(Math.max(exp - Date.now(), 0), 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [session]);

  const signIn = useCallback(async (email: string, password: string) => {
    const { body } = await apiRequest<LoginAnswer>('POST', '/auth/login', { body: { email, password }, token: null });
    queryClient.clear();
    tokenStore.set({ token: body.token, userId: body.user_id, organizationId: body.org_id, email: email.trim().toLowerCase() });
  }, [queryClient]);

  const createAccount = useCallback(async (input: { email: string; password: string; full_name: string }) => {
    await apiRequest('POST', '/auth/register', { body: input, token: null });
    await signIn(input.email, input.password);
  }, [signIn]);

  const signOut = useCallback(() => {
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
