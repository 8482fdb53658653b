// One incident of a status page: what it affects and since when, its timeline of updates
// (newest first, as visitors read it), and for members and above "Post update", "Resolve",
// corrections of the incident and of each update, and deletion.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useSession } from '../../../session/session';
import { DeleteButton } from '../../../ui/delete-button';
import { Dialog } from '../../../ui/dialog';
import { formatDateTime } from '../../../ui/format';
import { LoadError, Loading, Page } from '../../../ui/page';
import { usePageServices, useStatusPage } from '../status-page-api';
import type { StatusPage } from '../status-page-types';
import type { NamedService } from './affected-services';
import { useDeleteIncident, useIncident } from './incident-api';
import { EditIncidentForm } from './edit-incident-form';
import { IncidentState, impactText } from './incident-state';
import { IMPACT_TEXT, type Incident } from './incident-types';
import { Timeline } from './timeline';
import { PostUpdateForm } from './update-form';
import '../status-pages.css';

export default function IncidentPage() {
  const { id = '', incidentId = '' } = useParams();
  const page = useStatusPage(id);
  const incident = useIncident(id, incidentId);
  const services = usePageServices(page.data);
  const failed = page.error ?? incident.error;
  if (failed) return <Page title="Incident"><LoadError error={failed} retry={() => void (page.isError ? page.refetch() : incident.refetch())} /></Page>;
  if (!page.data || !incident.data) return <Page title="Incident"><Loading what="the incident" /></Page>;
  return <IncidentView page={page.data} incident={incident.data} services={services} />;
}

type Writing = 'update' | 'resolve' | 'edit' | null;

function IncidentView({ page, incident, services }: { page: StatusPage; incident: Incident; services: NamedService[] }) {
  const { canWrite } = useSession();
  const navigate = useNavigate();
  const remove = useDeleteIncident(page.id);
  const [writing, setWriting] = useState<Writing>(null);
  const close = () => setWriting(null);
  const resolved = incident.status === 'resolved';
  return (
    <Page
      title={incident.title}
      actions={
        canWrite && (
          <>
            <button type="button" className="primary" onClick={() => setWriting('update')}>
              Post update
            </button>
            {!resolved && (
              <button type="button" onClick={() => setWriting('resolve')}>
                Resolve
              </button>
            )}
            <button type="button" onClick={() => setWriting('edit')} aria-label={`Edit incident ${incident.title}`}>
              Edit
            </button>
            <DeleteButton
              what={`incident "${incident.title}"`}
              onDelete={async () => {
                await remove.mutateAsync(incident.id);
                navigate(`/status-pages/${page.id}`, { replace: true });
              }}
            />
          </>
        )
      }
    >
      <p>
        <Link to={`/status-pages/${page.id}`}>← {page.title}</Link>
      </p>
      <IncidentFacts incident={incident} />
      <section className="card" aria-labelledby="timeline-title">
        <h2 id="timeline-title">Updates</h2>
        <Timeline pageId={page.id} incident={incident} services={services} canWrite={canWrite} />
      </section>
      <Dialog title={writing === 'resolve' ? `Resolve ${incident.title}` : writing === 'edit' ? `Edit incident ${incident.title}` : 'Post update'} open={writing !== null} onClose={close}>
        {writing === 'update' && <PostUpdateForm pageId={page.id} incident={incident} services={services} onDone={close} />}
        {writing === 'resolve' && (
          <PostUpdateForm pageId={page.id} incident={incident} services={services} status="resolved" message="This incident has been resolved." submitLabel="Resolve" onDone={close} />
        )}
        {writing === 'edit' && <EditIncidentForm pageId={page.id} incident={incident} onDone={close} />}
      </Dialog>
    </Page>
  );
}

function IncidentFacts({ incident }: { incident: Incident }) {
  return (
    <section className="card" aria-label="About this incident">
      <dl className="page-facts">
        <div>
          <dt>Status</dt>
          <dd>
            <IncidentState status={incident.status} />
          </dd>
        </div>
        <div>
          <dt>Impact</dt>
          <dd>{impactText(incident.impact)}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatDateTime(incident.starts_at)}</dd>
        </div>
        <div>
          <dt>Resolved</dt>
          <dd>{incident.resolved_at ? formatDateTime(incident.resolved_at) : 'Not yet'}</dd>
        </div>
        <div>
          <dt>Affected services</dt>
          <dd>{incident.affected.length === 0 ? 'None named' : incident.affected.map((a) => `${a.service_name} (${IMPACT_TEXT[a.impact].toLowerCase()})`).join(', ')}</dd>
        </div>
      </dl>
    </section>
  );
}
