// An incident's updates, newest first as visitors read them: the status each set, when, the
// message; members and above correct one, or delete one while others remain.
import { useState } from 'react';
import { Dialog } from '../../../ui/dialog';
import { formatDateTime } from '../../../ui/format';
import { EditDeleteActions } from '../../../ui/row-actions';
import { useDeleteUpdate } from './incident-api';
import { IncidentState } from './incident-state';
import type { NamedService } from './affected-services';
import { IMPACT_TEXT, type Affected, type Incident, type IncidentUpdate } from './incident-types';
import { EditUpdateForm } from './update-form';

interface TimelineProps {
  pageId: string;
  incident: Incident;
  /** For the names of the services an update named. */
  services: NamedService[];
  canWrite: boolean;
}

export function Timeline({ pageId, incident, services, canWrite }: TimelineProps) {
  const remove = useDeleteUpdate(pageId, incident.id);
  const [editing, setEditing] = useState<IncidentUpdate | null>(null);
  const newestFirst = [...incident.updates].reverse();
  // An incident always says something: its last update can be corrected, not deleted.
  const lastOne = incident.updates.length === 1;
  const affectedText = (a: Affected) => `${services.find((s) => s.id === a.service_id)?.name ?? 'a service not on the page'} (${IMPACT_TEXT[a.impact].toLowerCase()})`;
  return (
    <>
      <ol className="timeline" aria-label={`Updates of ${incident.title}`}>
        {newestFirst.map((update) => {
          const when = formatDateTime(update.created_at);
          return (
            <li key={update.id} className="timeline-entry" aria-label={`${update.status} at ${when}`}>
              <header>
                <IncidentState status={update.status} />
                <time dateTime={update.created_at}>{when}</time>
                {update.updated_at !== update.created_at && <span className="muted">(edited {formatDateTime(update.updated_at)})</span>}
              </header>
              <p>{update.message}</p>
              {update.affected && <p className="muted">Affected: {update.affected.length === 0 ? 'none' : update.affected.map(affectedText).join(', ')}</p>}
              {canWrite &&
                (lastOne ? (
                  <button type="button" onClick={() => setEditing(update)} aria-label={`Edit update of ${when}`}>
                    Edit
                  </button>
                ) : (
                  <EditDeleteActions name={`update of ${when}`} what={`update of ${when}`} onEdit={() => setEditing(update)} onDelete={() => remove.mutateAsync(update.id)} />
                ))}
            </li>
          );
        })}
      </ol>
      <Dialog title="Edit update" open={editing !== null} onClose={() => setEditing(null)}>
        {editing && <EditUpdateForm pageId={pageId} incidentId={incident.id} update={editing} onDone={() => setEditing(null)} />}
      </Dialog>
    </>
  );
}
