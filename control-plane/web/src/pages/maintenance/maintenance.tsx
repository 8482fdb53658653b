// Maintenance windows: while one covers a service its checks run, but no alert opens and
// nobody is notified. A window is one-off, or recurring on a cron schedule; each row shows
// its next occurrences in the browser's time zone.
import { useState } from 'react';
import { useDeleteResource, useResourceList } from '../../api/resources';
import type { Service } from '../../api/types';
import { useSession } from '../../session/session';
import { Dialog } from '../../ui/dialog';
import { ListTable } from '../../ui/list-table';
import { CreateButton, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import './maintenance.css';
import { MAINTENANCE_PATH, type MaintenanceWindow } from './maintenance-types';
import { NextOccurrences, WindowTiming } from './occurrences';
import { WindowForm } from './window-form';

function phase(w: MaintenanceWindow): string {
  if (w.active) return 'Active now';
  return w.next_occurrences.length > 0 ? 'Scheduled' : 'Ended';
}

export default function MaintenancePage() {
  const { canWrite } = useSession();
  const windows = useResourceList<MaintenanceWindow>(MAINTENANCE_PATH);
  const services = useResourceList<Service>('/services', { sort: 'name' });
  const statusPages = useResourceList<{ id: string; title: string }>('/status-pages');
  const remove = useDeleteResource(MAINTENANCE_PATH);
  const [editing, setEditing] = useState<MaintenanceWindow | 'new' | null>(null);
  const serviceName = (id: string) => services.data?.find((s) => s.id === id)?.name ?? 'a deleted service';
  const pageTitle = (id: string) => statusPages.data?.find((p) => p.id === id)?.title ?? 'a deleted page';

  return (
    <Page
      title="Maintenance windows"
      actions={canWrite && <CreateButton onClick={() => setEditing('new')}>Create window</CreateButton>}
    >
      <QueryState query={windows} what="maintenance windows" empty={<>No maintenance window. {canWrite ? 'Create one before planned work, once or on a schedule, so its failures open no alert.' : 'A member of the organization can create one.'}</>}>
        {(data) => (
          <ListTable columns={['Name', 'When', 'Next occurrences', 'Now', 'Services', 'Announced on']} actions={canWrite}>
            {data.map((w) => (
              <tr key={w.id}>
                <th scope="row">{w.name}</th>
                <td>
                  <WindowTiming window={w} />
                </td>
                <td>
                  <NextOccurrences occurrences={w.next_occurrences} limit={3} label={`Next occurrences of ${w.name}`} />
                </td>
                <td>{phase(w)}</td>
                <td>{w.service_ids.length === 0 ? 'All services' : w.service_ids.map(serviceName).join(', ')}</td>
                <td>{w.status_page_ids.length === 0 ? '—' : `${w.status_page_ids.map(pageTitle).join(', ')}, ${w.announce_hours_before} h ahead`}</td>
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
        {editing !== null && <WindowForm window={editing === 'new' ? undefined : editing} services={services.data ?? []} statusPages={statusPages.data ?? []} onDone={() => setEditing(null)} />}
      </Dialog>
    </Page>
  );
}
