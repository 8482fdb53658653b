// Maintenance windows: while one covers a service its checks run, but no alert opens and
// nobody is notified. Times are entered in the browser's time zone and sent as UTC.
import { useState, type FormEvent } from 'react';
import { useDeleteResource, useResourceList, useSaveResource } from '../../api/resources';
import type { Service } from '../../api/types';
import { useSession } from '../../session/session';
import { Dialog } from '../../ui/dialog';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { CreateButton, FormProblems, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import { CheckboxGroup } from '../channels/checkbox-group';
import { FormActions } from '../../ui/form-actions';

interface MaintenanceWindow {
  id: string;
  name: string;
  starts_at: string;
  ends_at: string;
  /** Empty: every service of the organization. */
  service_ids: string[];
  active: boolean;
}

const PATH = '/maintenance-windows';

/** "2025-01-31T14:05" in local time, as a datetime-local input holds it. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The local time as ISO UTC; an empty or partial input goes as it is, for the API to name. */
function toIso(local: string): string | undefined {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? local : d.toISOString();
}

function phase(w: MaintenanceWindow): string {
  if (w.active) return 'Active now';
  return Date.parse(w.starts_at) > Date.now() ? 'Scheduled' : 'Ended';
}

export default function MaintenancePage() {
  const { canWrite } = useSession();
  const windows = useResourceList<MaintenanceWindow>(PATH);
  const services = useResourceList<Service>('/services', { sort: 'name' });
  const remove = useDeleteResource(PATH);
  const [editing, setEditing] = useState<MaintenanceWindow | 'new' | null>(null);
  const serviceName = (id: string) => services.data?.find((s) => s.id === id)?.name ?? 'a deleted service';

  return (
    <Page
      title="Maintenance windows"
      actions={canWrite && <CreateButton onClick={() => setEditing('new')}>Create window</CreateButton>}
    >
      <QueryState query={windows} what="maintenance windows" empty={<>No maintenance window. {canWrite ? 'Create one before planned work so its failures open no alert.' : 'A member of the organization can create one.'}</>}>
        {(data) => (
          <ListTable columns={['Name', 'Starts', 'Ends', 'Now', 'Services']} actions={canWrite}>
            {data.map((w) => (
              <tr key={w.id}>
                <th scope="row">{w.name}</th>
                <td>{formatDateTime(w.starts_at)}</td>
                <td>{formatDateTime(w.ends_at)}</td>
                <td>{phase(w)}</td>
                <td>{w.service_ids.length === 0 ? 'All services' : w.service_ids.map(serviceName).join(', ')}</td>
                {canWrite && (
                  <td>
                    <EditDeleteActions name={w.name} what={`window "${w.name}"`} onEdit={() => setEditing(w)} onDelete={() => remove.mutateAsync(w.id)} />
                  </td>
                )}
              </tr>
            ))}
          </ListTable>
        )}
      </QueryState>
      <Dialog title={editing === 'new' ? 'Create maintenance window' : `Edit ${editing?.name ?? ''}`} open={editing !== null} onClose={() => setEditing(null)}>
        {editing !== null && <WindowForm window={editing === 'new' ? undefined : editing} services={services.data ?? []} onDone={() => setEditing(null)} />}
      </Dialog>
    </Page>
  );
}

function WindowForm({ window: current, services, onDone }: { window?: MaintenanceWindow; services: Service[]; onDone(): void }) {
  const [name, setName] = useState(current?.name ?? '');
  const [startsAt, setStartsAt] = useState(() => toLocalInput(current?.starts_at));
  const [endsAt, setEndsAt] = useState(() => toLocalInput(current?.ends_at));
  const [serviceIds, setServiceIds] = useState(current?.service_ids ?? []);
  const save = useSaveResource<MaintenanceWindow>(PATH);
  const errors = formErrors(save.error);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ id: current?.id, body: { name, starts_at: toIso(startsAt), ends_at: toIso(endsAt), service_ids: serviceIds } }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['name', 'starts_at', 'ends_at', 'service_ids'])} />
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} required autoFocus />
      <div className="form-grid">
        <TextField label="Starts" type="datetime-local" value={startsAt} onChange={(e) => setStartsAt(e.target.value)} error={errors.field('starts_at')} hint={`Your time zone (${zone}).`} required />
        <TextField label="Ends" type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} error={errors.field('ends_at')} required />
      </div>
      <CheckboxGroup
        legend="Services"
        options={services.map((s) => ({ value: s.id, label: s.name }))}
        selected={serviceIds}
        onChange={setServiceIds}
        error={errors.field('service_ids')}
        hint="None chosen: the window covers all services."
        none="No service yet: the window covers all services."
      />
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={current ? 'Save' : 'Create window'} />
    </form>
  );
}
