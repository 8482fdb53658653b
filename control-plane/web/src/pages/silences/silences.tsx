// Silences: while one covers a service, its alerts open and show as silenced but notify
// nobody. Current ones (active and pending) by default, expired ones on demand. Members
// create, change, expire and delete them; viewers read them.
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useResourceList } from '../../api/resources';
import type { Member, Service, ServicesSummary } from '../../api/types';
import { useOrg, useSession } from '../../session/session';
import { DeleteButton } from '../../ui/delete-button';
import { Dialog } from '../../ui/dialog';
import { SelectField } from '../../ui/field';
import { formatAgo, formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { CreateButton, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import { matchersSummary } from './matchers';
import { useDeleteSilence, useExpireSilence, useSilences } from './silence-api';
import { SilenceForm } from './silence-form';
import type { Silence, SilenceListState } from './silence-types';
import './silences.css';

const FILTERS: { value: SilenceListState; label: string; empty: string }[] = [
  { value: 'current', label: 'Current (active and pending)', empty: 'No silence is active or pending.' },
  { value: 'active', label: 'Active', empty: 'No silence is active.' },
  { value: 'pending', label: 'Pending', empty: 'No silence starts later.' },
  { value: 'expired', label: 'Expired', empty: 'No silence has expired.' },
  { value: 'all', label: 'All', empty: 'No silence yet.' },
];

const STATE_TEXT: Record<Silence['state'], string> = { active: 'Active', pending: 'Pending', expired: 'Expired' };

/** A silence as its buttons name it: its comment, cut short. */
const nameOf = (s: Silence) => `silence "${s.comment.length > 60 ? `${s.comment.slice(0, 59)}…` : s.comment}"`;

export default function SilencesPage() {
  const { canWrite } = useSession();
  const org = useOrg();
  const [params, setParams] = useSearchParams();
  const filter = FILTERS.find((f) => f.value === params.get('state')) ?? FILTERS[0]!;
  const silences = useSilences(filter.value);
  const services = useResourceList<Service>('/services', { sort: 'name' });
  const members = useResourceList<Member>('/members');
  const summary = useQuery({ queryKey: queryKeys.servicesSummary(org), queryFn: () => api.get<ServicesSummary>('/services/summary'), enabled: canWrite });
  const [editing, setEditing] = useState<Silence | 'new' | null>(null);
  // An alert's "Silenced until" leads here with #silence-<id>: that row is brought into view and marked.
  const { hash } = useLocation();
  useEffect(() => {
    if (hash.startsWith('#silence-') && silences.data) document.getElementById(hash.slice(1))?.scrollIntoView({ block: 'center' });
  }, [hash, silences.data]);

  const serviceName = (id: string) => services.data?.find((s) => s.id === id)?.name ?? 'a deleted service';
  const personName = (id: string | null) => (id ? (members.data?.find((m) => m.user_id === id)?.full_name ?? 'a member') : 'an API key');

  return (
    <Page title="Silences" actions={canWrite && <CreateButton onClick={() => setEditing('new')}>Create silence</CreateButton>}>
      <p className="muted">While a silence covers a service, its alerts open and show as silenced, but notify nobody. When it ends, alerts still firing notify then.</p>
      <div className="silence-filter">
        <SelectField label="Show" value={filter.value} onChange={(e) => setParams(e.target.value === 'current' ? {} : { state: e.target.value }, { replace: true })}>
          {FILTERS.map((f) => (
            <option key={f.value} value={f.value}>
              {f.label}
            </option>
          ))}
        </SelectField>
      </div>
      <QueryState query={silences} what="silences" empty={<>{filter.empty} {canWrite && filter.value === 'current' ? 'Create one, or snooze an alert from the Alerts page.' : ''}</>}>
        {(data) => (
          <ListTable columns={['Comment', 'State', 'Covers', 'Starts', 'Ends', 'Created by']} actions={canWrite}>
            {data.map((s) => (
              <tr key={s.id} id={`silence-${s.id}`} className={hash === `#silence-${s.id}` ? 'silence-target' : undefined}>
                <th scope="row" className="silence-comment">
                  {s.comment}
                </th>
                <td>
                  <span className={`silence-state silence-${s.state}`}>{STATE_TEXT[s.state]}</span>
                </td>
                <td>{matchersSummary(s.matchers, serviceName)}</td>
                <td>
                  {formatDateTime(s.starts_at)}
                  {s.state === 'pending' && <span className="muted"> ({formatAgo(s.starts_at)})</span>}
                </td>
                <td>
                  <time dateTime={s.ends_at}>{formatDateTime(s.ends_at)}</time> <span className="muted">({formatAgo(s.ends_at)})</span>
                </td>
                <td>{personName(s.created_by)}</td>
                {canWrite && (
                  <td>
                    <SilenceActions silence={s} onEdit={() => setEditing(s)} />
                  </td>
                )}
              </tr>
            ))}
          </ListTable>
        )}
      </QueryState>
      <Dialog title={editing === 'new' ? 'Create silence' : 'Edit silence'} open={editing !== null} onClose={() => setEditing(null)} wide>
        {editing !== null && <SilenceForm silence={editing === 'new' ? undefined : editing} services={services.data ?? []} known={summary.data} onDone={() => setEditing(null)} />}
      </Dialog>
    </Page>
  );
}

/** Expire and Edit while it is current (an expired silence is not brought back: make a new one), and Delete. */
function SilenceActions({ silence, onEdit }: { silence: Silence; onEdit(): void }) {
  const expire = useExpireSilence();
  const remove = useDeleteSilence();
  const name = nameOf(silence);
  const onDelete = () => remove.mutateAsync(silence.id);
  if (silence.state === 'expired') {
    return (
      <div className="row-actions">
        <DeleteButton what={name} onDelete={onDelete} />
      </div>
    );
  }
  return (
    <>
      <EditDeleteActions name={name} what={name} onEdit={onEdit} onDelete={onDelete}>
        <button type="button" disabled={expire.isPending} onClick={() => expire.mutate(silence.id)} aria-label={`Expire ${name}`}>
          Expire
        </button>
      </EditDeleteActions>
      {expire.isError && (
        <p className="form-error" role="alert">
          The silence could not be expired: {expire.error.message}
        </p>
      )}
    </>
  );
}
