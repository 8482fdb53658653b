// The signed-in person's sessions: where and how each began and when it was last used, with
// sign-out for one of them, for every other one, or everywhere (this one too).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useResourceList } from '../../api/resources';
import { useOrg, useSession } from '../../session/session';
import { DeleteButton } from '../../ui/delete-button';
import { ConfirmedButton } from '../../ui/confirmed-button';
import { formatAgo, formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import './sessions.css';

interface SignInSession {
  id: string;
  method: string;
  device: string;
  user_agent: string | null;
  address: string | null;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  current: boolean;
}

const METHODS: Record<string, string> = {
  password: 'Password',
  sso: 'Single sign-on',
  passkey: 'Passkey',
  invitation: 'Invitation',
  password_reset: 'Password reset',
};

export default function SessionsPage() {
  const org = useOrg();
  const client = useQueryClient();
  const { signOut } = useSession();
  const sessions = useResourceList<SignInSession>('/sessions');
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.resource(org, '/sessions') });
  const end = useMutation({ mutationFn: (id: string) => api.del(`/sessions/${id}`), onSuccess: refresh });
  const endOthers = useMutation({ mutationFn: () => api.del('/sessions?keep_current=true'), onSuccess: refresh });

  return (
    <Page title="Sessions">
      <p className="muted">
        Every sign-in is a session. Signing one out ends it on every device and server within seconds; so does changing your password.
      </p>
      <QueryState query={sessions} what="sessions" empty="No sessions.">
        {(data) => (
          <>
            <ListTable columns={['Device', 'Signed in with', 'Address', 'Started', 'Last active', 'Actions']}>
              {data.map((s) => (
                <tr key={s.id}>
                  <td title={s.user_agent ?? undefined}>
                    {s.device} {s.current && <span className="session-current">This session</span>}
                  </td>
                  <td>{METHODS[s.method] ?? s.method}</td>
                  <td>{s.address ?? '—'}</td>
                  <td>{formatDateTime(s.created_at)}</td>
                  <td title={formatDateTime(s.last_seen_at)}>{s.current ? 'Now' : formatAgo(s.last_seen_at)}</td>
                  <td>
                    {s.current ? (
                      <button type="button" onClick={signOut}>
                        Sign out
                      </button>
                    ) : (
                      <DeleteButton what={`the session on ${s.device}`} label="Sign out" onDelete={() => end.mutateAsync(s.id)} />
                    )}
                  </td>
                </tr>
              ))}
            </ListTable>
            <div className="actions">
              <ConfirmedButton
                label="Sign out other sessions"
                message="Every session but this one ends, on every device."
                disabled={data.length < 2}
                onConfirm={() => endOthers.mutateAsync()}
              />
              <ConfirmedButton
                label="Sign out everywhere"
                message="Every session ends, this one too: you will sign in again."
                onConfirm={async () => {
                  await api.del('/sessions');
                  signOut();
                }}
              />
            </div>
          </>
        )}
      </QueryState>
    </Page>
  );
}

