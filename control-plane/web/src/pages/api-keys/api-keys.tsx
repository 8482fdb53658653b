// API keys for scripts and CI. Only admins and owners see and manage them (the API refuses
// the list to others); a new key is shown once, with a button to copy it.
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/http';
import { useDeleteResource, useResourceList, useSaveResource } from '../../api/resources';
import { CheckboxGroup } from '../channels/checkbox-group';
import type { Role } from '../../api/types';
import { useSession } from '../../session/session';
import { CopyButton } from '../../ui/copy-button';
import { DeleteButton } from '../../ui/delete-button';
import { Dialog } from '../../ui/dialog';
import { SelectField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { formatAgo, formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { CreateButton, FormProblems, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { assignableRoles, ROLE_HELP } from '../members/roles';
import './api-keys.css';
import { FormActions } from '../../ui/form-actions';

interface ApiKey {
  id: string;
  name: string;
  role: Role;
  prefix: string;
  scopes: string[] | null;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

const EXPIRIES: { label: string; days: number | null }[] = [
  { label: 'Never', days: null },
  { label: 'In 7 days', days: 7 },
  { label: 'In 30 days', days: 30 },
  { label: 'In 90 days', days: 90 },
  { label: 'In a year', days: 365 },
];

interface CreatedApiKey extends ApiKey {
  key: string;
}

export default function ApiKeysPage() {
  const { canManage, role } = useSession();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  return (
    <Page
      title="API keys"
      actions={canManage && <CreateButton onClick={() => setCreating(true)}>Create API key</CreateButton>}
    >
      <p className="muted">
        A key works wherever a sign-in token does (<code>Authorization: Bearer op_…</code>), with the role it was given, narrowed to its scopes if it has
        any, until it expires or is deleted.
      </p>
      {canManage ? <ApiKeyList /> : role && <p className="notice">Only admins and owners can see and manage API keys.</p>}
      <Dialog title="Create API key" open={creating} onClose={() => setCreating(false)}>
        {creating && (
          <CreateApiKeyForm
            onCancel={() => setCreating(false)}
            onCreated={(key) => {
              setCreating(false);
              setCreated(key);
            }}
          />
        )}
      </Dialog>
      <Dialog title={`API key ${created?.name ?? ''} created`} open={created !== null} onClose={() => setCreated(null)}>
        {created && (
          <>
            <p className="notice" role="status">
              Copy the key now: it is shown only once.
            </p>
            <TextField label="API key" className="key-secret" readOnly value={created.key} onFocus={(e) => e.target.select()} />
            <CopyButton text={created.key} label="Copy API key" />
            <div className="actions">
              <button type="button" className="primary" onClick={() => setCreated(null)}>
                Done
              </button>
            </div>
          </>
        )}
      </Dialog>
    </Page>
  );
}

function ApiKeyList() {
  const keys = useResourceList<ApiKey>('/api-keys');
  const remove = useDeleteResource('/api-keys');
  return (
    <QueryState query={keys} what="API keys" empty="No API keys yet.">
      {(data) => (
        <ListTable columns={['Name', 'Role', 'Scopes', 'Key starts with', 'Created', 'Expires', 'Last used', 'Actions']}>
          {data.map((key) => (
            <tr key={key.id}>
              <td>{key.name}</td>
              <td>{key.role}</td>
              <td>{key.scopes ? key.scopes.join(', ') : <span className="muted">all of the role</span>}</td>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{formatDateTime(key.created_at)}</td>
              <td>{key.expires_at ? <span className={Date.parse(key.expires_at) <= Date.now() ? 'expired' : undefined}>{formatDateTime(key.expires_at)}</span> : 'Never'}</td>
              <td title={formatDateTime(key.last_used_at)}>{formatAgo(key.last_used_at)}</td>
              <td>
                <DeleteButton what={`API key "${key.name}"`} onDelete={() => remove.mutateAsync(key.id)} />
              </td>
            </tr>
          ))}
        </ListTable>
      )}
    </QueryState>
  );
}

function CreateApiKeyForm({ onCancel, onCreated }: { onCancel(): void; onCreated(key: CreatedApiKey): void }) {
  const { role: ownRole } = useSession();
  const save = useSaveResource<CreatedApiKey>('/api-keys');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [limited, setLimited] = useState(false);
  const [scopes, setScopes] = useState<string[]>([]);
  const [expiry, setExpiry] = useState<number | null>(90);
  const catalogue = useQuery({ queryKey: ['api-key-scopes'], queryFn: () => api.get<string[]>('/api-keys/scopes'), staleTime: Infinity });
  const errors = formErrors(save.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const expires_at = expiry === null ? null : new Date(Date.now() + expiry * 86_400_000).toISOString();
    save.mutate({ body: { name, role, scopes: limited ? scopes : null, expires_at } }, { onSuccess: onCreated });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['name', 'role', 'scopes', 'expires_at'])} />
      <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} hint="What uses it, e.g. deploy pipeline." />
      <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)} error={errors.field('role')} hint={ROLE_HELP[role]}>
        {assignableRoles(ownRole).map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </SelectField>
      <SelectField label="Access" value={limited ? 'scopes' : 'role'} onChange={(e) => setLimited(e.target.value === 'scopes')} hint="Scopes narrow what the role allows; a write scope includes reading.">
        <option value="role">Everything its role allows</option>
        <option value="scopes">Only the scopes chosen below</option>
      </SelectField>
      {limited && (
        <CheckboxGroup
          legend="Scopes"
          options={(catalogue.data ?? []).map((scope) => ({ value: scope, label: scope }))}
          selected={scopes}
          onChange={setScopes}
          error={errors.field('scopes')}
          none="Loading the scopes…"
        />
      )}
      <SelectField label="Expires" value={expiry === null ? 'never' : String(expiry)} onChange={(e) => setExpiry(e.target.value === 'never' ? null : Number(e.target.value))} error={errors.field('expires_at')}>
        {EXPIRIES.map((option) => (
          <option key={option.label} value={option.days === null ? 'never' : String(option.days)}>
            {option.label}
          </option>
        ))}
      </SelectField>
      <FormActions onCancel={onCancel} busy={save.isPending} submitLabel="Create" />
    </form>
  );
}
