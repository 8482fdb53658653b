// A status page's incidents, open ones first, each leading to its timeline; members and above
// write a new one.
import { useState } from 'react';
import { Link } from 'react-router';
import { useResourceList } from '../../../api/resources';
import { Dialog } from '../../../ui/dialog';
import { formatDateTime } from '../../../ui/format';
import { ListTable } from '../../../ui/list-table';
import { QueryState } from '../../../ui/query-state';
import type { StatusPage } from '../status-page-types';
import type { NamedService } from './affected-services';
import { IncidentForm } from './incident-form';
import { IncidentState, impactText } from './incident-state';
import { incidentsPath, type Incident } from './incident-types';

interface IncidentListProps {
  page: StatusPage;
  services: NamedService[];
  canWrite: boolean;
  onOpen(incident: Incident): void;
}

const openFirst = (a: Incident, b: Incident) => Number(a.resolved_at !== null) - Number(b.resolved_at !== null) || b.starts_at.localeCompare(a.starts_at);

export function IncidentList({ page, services, canWrite, onOpen }: IncidentListProps) {
  const incidents = useResourceList<Incident>(incidentsPath(page.id));
  const [writing, setWriting] = useState(false);
  return (
    <section className="card" aria-labelledby="incidents-title">
      <header className="section-header">
        <h2 id="incidents-title">Incidents</h2>
        {canWrite && (
          <button type="button" className="primary" onClick={() => setWriting(true)}>
            New incident
          </button>
        )}
      </header>
      <QueryState query={incidents} what="incidents" empty="No incident written on this page yet.">
        {(data) => (
          <ListTable columns={['Incident', 'Status', 'Impact', 'Started', 'Resolved', 'Updates']}>
            {[...data].sort(openFirst).map((incident) => (
              <tr key={incident.id}>
                <td>
                  <Link to={`/status-pages/${page.id}/incidents/${incident.id}`}>{incident.title}</Link>
                </td>
                <td>
                  <IncidentState status={incident.status} />
                </td>
                <td>{impactText(incident.impact)}</td>
                <td>{formatDateTime(incident.starts_at)}</td>
                <td>{incident.resolved_at ? formatDateTime(incident.resolved_at) : <span className="muted">Open</span>}</td>
                <td>{incident.updates.length}</td>
              </tr>
            ))}
          </ListTable>
        )}
      </QueryState>
      <Dialog title="New incident" open={writing} onClose={() => setWriting(false)} wide>
        {writing && <IncidentForm pageId={page.id} services={services} onCancel={() => setWriting(false)} onCreated={onOpen} />}
      </Dialog>
    </section>
  );
}
