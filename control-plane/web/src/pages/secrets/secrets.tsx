// Organization secrets: values checks use by name ({{secrets.NAME}} in a service's options)
// without anyone reading them back. Everyone sees the names and what uses them; admins and
// owners create, change and delete. A value is typed in and never shown again.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useDeleteResource, useResourceList, useSaveResource } from '../../api/resources';
import { useSession } from '../../session/session';
import { Dialog } from '../../ui/dialog';
import { TextField } from '../../ui/field';
import { FormActions } from '../../ui/form-actions';
import { formErrors } from '../../ui/form-errors';
import { formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { CreateButton, FormProblems, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';

interface Secret {
  id: string;
  organization_id: string;
  name: string;
  created_at: string;
  updated_at: string;
  /** The services whose checks use it. */
  used_by?: { id: string; name: string }[];
}

/** The dialog open: creating (no secret) or changing one's value. */
type Editing = { secret?: Secret } | null;

export default function SecretsPage() {
  const { canManage } = useSession();
  const [editing, setEditing] = useState<Editing>(null);
  const secret = editing?.secret;
  return (
    <Page title="Secrets" actions={canManage && <CreateButton onClick={() => setEditing({})}>Create secret</CreateButton>}>
      <p className="muted">
        A check uses a secret as <code>{'{{secrets.NAME}}'}</code> in its options: a MULTISTEP step's URL, headers or body, a header, a bearer token, a password. Values
        are stored encrypted and never shown again.
      </p>
      <SecretList canManage={canManage} onChange={(s) => setEditing({ secret: s })} />
      <Dialog title={secret ? `Change the value of ${secret.name}` : 'Create secret'} open={editing !== null} onClose={() => setEditing(null)}>
        {editing && <SecretForm key={secret?.id ?? 'new'} secret={secret} onDone={() => setEditing(null)} />}
      </Dialog>
    </Page>
  );
}

function SecretList({ canManage, onChange }: { canManage: boolean; onChange(secret: Secret): void }) {
  const secrets = useResourceList<Secret>('/secrets');
  const remove = useDeleteResource('/secrets');
  return (
    <QueryState query={secrets} what="secrets" empty="No secrets yet.">
      {(data) => (
        <ListTable columns={['Name', 'Used by', 'Created', 'Changed']} actions={canManage}>
          {data.map((secret) => (
            <tr key={secret.id}>
              <td>
                <code>{secret.name}</code>
              </td>
              <td>
                <UsedBy services={secret.used_by ?? []} />
              </td>
              <td>{formatDateTime(secret.created_at)}</td>
              <td>{formatDateTime(secret.updated_at)}</td>
              {canManage && (
                <td>
                  {/* A secret in use is refused (409): the delete dialog shows the API's message naming the services. */}
                  <EditDeleteActions
                    name={secret.name}
                    what={`secret "${secret.name}"`}
                    editLabel="Change value"
                    editName={`Change the value of ${secret.name}`}
                    onEdit={() => onChange(secret)}
                    onDelete={() => remove.mutateAsync(secret.id)}
                  />
                </td>
              )}
            </tr>
          ))}
        </ListTable>
      )}
    </QueryState>
  );
}

function UsedBy({ services }: { services: { id: string; name: string }[] }) {
  if (services.length === 0) return <span className="muted">Nothing</span>;
  return (
    <>
      {services.map((s, i) => (
        <span key={s.id}>
          {i > 0 && ', '}
          <Link to={`/services/${s.id}`}>{s.name}</Link>
        </span>
      ))}
    </>
  );
}

/** Creates a secret, or with `secret` gives it a new value (its name stays). */
function SecretForm({ secret, onDone }: { secret?: Secret; onDone(): void }) {
  const save = useSaveResource<Secret>('/secrets');
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const errors = formErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ id: secret?.id, body: secret ? { value } : { name: name.trim(), value } }, { onSuccess: onDone });
  };
  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['name', 'value'])} />
      {!secret && <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} hint="Used as {{secrets.NAME}}, e.g. API_TOKEN." />}
      <TextField
        label={secret ? 'New value' : 'Value'}
        type="password"
        autoComplete="new-password"
        required
        value={value}
        onChange={(e) => setValue(e.target.value)}
        error={errors.field('value')}
        hint="Not shown again once saved."
      />
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={secret ? 'Change value' : 'Create'} />
    </form>
  );
}
