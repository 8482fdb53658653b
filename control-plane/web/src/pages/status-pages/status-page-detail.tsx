// One status page: where visitors find it, who may see it, its incidents (written by the
// team, with "New incident") and, for admins, its subscribers.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useSession } from '../../session/session';
import { CopyButton } from '../../ui/copy-button';
import { LoadError, Loading, Page } from '../../ui/page';
import { IncidentList } from './incidents/incident-list';
import { usePageServices, useStatusPage } from './status-page-api';
import { StatusPageDialog } from './status-page-form';
import { ACCESS_TEXT, type StatusPage } from './status-page-types';
import { Subscribers } from './subscribers';
import './status-pages.css';

export default function StatusPageDetailPage() {
  const id = useParams().id ?? '';
  const page = useStatusPage(id);
  if (page.isPending) return <Page title="Status page"><Loading what="the status page" /></Page>;
  if (page.isError) return <Page title="Status page"><LoadError error={page.error} retry={() => void page.refetch()} /></Page>;
  return <StatusPageDetail page={page.data} />;
}

function StatusPageDetail({ page }: { page: StatusPage }) {
  const { canWrite, canManage } = useSession();
  const [editing, setEditing] = useState(false);
  const services = usePageServices(page);
  const navigate = useNavigate();
  return (
    <Page
      title={page.title}
      actions={
        <>
          <a className="button" href={page.page_url} target="_blank" rel="noreferrer">
            View public page
          </a>
          {canWrite && (
            <button type="button" onClick={() => setEditing(true)}>
              Edit
            </button>
          )}
        </>
      }
    >
      <p>
        <Link to="/status-pages">← All status pages</Link>
      </p>
      <PageFacts page={page} />
      <IncidentList page={page} services={services} canWrite={canWrite} onOpen={(incident) => navigate(`/status-pages/${page.id}/incidents/${incident.id}`)} />
      {canManage && <Subscribers page={page} services={services} />}
      <StatusPageDialog page={page} open={editing} onClose={() => setEditing(false)} />
    </Page>
  );
}

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function PageFacts({ page }: { page: StatusPage }) {
  const link = `${window.location.origin}${page.page_url}`;
  return (
    <section className="card" aria-label="About this status page">
      <dl className="page-facts">
        <div>
          <dt>Public link</dt>
          <dd>
            <a href={page.page_url} target="_blank" rel="noreferrer">
              {link}
            </a>{' '}
            <CopyButton text={link} label="Copy link" />
          </dd>
        </div>
        <div>
          <dt>Custom domain</dt>
          <dd>{page.custom_domain ? <a href={`https://${page.custom_domain}/`}>{page.custom_domain}</a> : <span className="muted">None</span>}</dd>
        </div>
        <div>
          <dt>Who may see it</dt>
          <dd>
            {ACCESS_TEXT[page.access]}
            {page.access === 'password' && !page.password_set && <span className="field-error"> (no password set yet)</span>}
            {page.access === 'ip_allowlist' && `: ${page.ip_allowlist.join(', ') || 'no address yet'}`}
          </dd>
        </div>
        <div>
          <dt>Shows</dt>
          <dd>
            {plural(page.service_ids.length, 'service')}
            {page.groups.length > 0 && `, ${plural(page.groups.length, 'component')}`}
          </dd>
        </div>
        <div>
          <dt>Open alerts as incidents</dt>
          <dd>{page.auto_incidents ? 'Shown' : 'Not shown: only written incidents'}</dd>
        </div>
      </dl>
    </section>
  );
}
