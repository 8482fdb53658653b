// One service: what it checks, its latest result's assertions and steps, its status now and
// per location, response times and phases, uptime and the checks log, all refreshed by the
// live feed; write actions for members+.
import { useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useResourceList } from '../../api/resources';
import type { Service } from '../../api/types';
import { useSession } from '../../session/session';
import { DeleteButton } from '../../ui/delete-button';
import { formatAgo, formatDateTime } from '../../ui/format';
import { LoadError, Loading, Page } from '../../ui/page';
import { StatusBadge } from '../../ui/status';
import { ChecksLog } from './checks-log';
import { LatestResult } from './latest-result';
import { LocationHistory } from './location-history';
import { useCheckNow, useDeleteService, useService } from './service-api';
import { UptimeCard } from './uptime-card';
import './services.css';

export default function ServiceDetailPage() {
  const { id } = useParams();
  const service = useService(id);
  if (service.isPending) return <Page title="Service"><Loading what="the service" /></Page>;
  if (service.isError) return <Page title="Service"><LoadError error={service.error} retry={() => void service.refetch()} /></Page>;
  return <ServiceDetail service={service.data} />;
}

function ServiceDetail({ service }: { service: Service }) {
  const { canWrite } = useSession();
  const navigate = useNavigate();
  const remove = useDeleteService();
  return (
    <Page
      title={service.name}
      actions={
        canWrite && (
          <>
            <CheckNowButton serviceId={service.id} />
            <Link className="button" to={`/services/${service.id}/edit`}>
              Edit
            </Link>
            <DeleteButton
              what={`service "${service.name}"`}
              onDelete={async () => {
                await remove.mutateAsync(service.id);
                navigate('/services', { replace: true });
              }}
            />
          </>
        )
      }
    >
      <p>
        <Link to="/services">← All services</Link>
      </p>
      {service.suppressed_by.length > 0 && <HeldNotice parents={service.suppressed_by} />}
      <section className="card" aria-label="About this service">
        <dl className="service-facts">
          <Fact term="Status">
            <StatusBadge status={service.status} />
          </Fact>
          <Fact term="Endpoint">
            <span className="mono">{service.endpoint}</span>
          </Fact>
          <Fact term="Check type">{service.check_type}</Fact>
          <Fact term="Interval">{service.check_interval_seconds} s</Fact>
          <Fact term="Timeout">{service.timeout_seconds} s</Fact>
          <Fact term="Environment">{service.environment ?? '—'}</Fact>
          <Fact term="Tags">
            {service.tags.length === 0
              ? '—'
              : service.tags.map((tag) => (
                  <span className="tag" key={tag}>
                    {tag}
                  </span>
                ))}
          </Fact>
          <Fact term="Last checked">
            <time dateTime={service.last_checked_at ?? undefined} title={formatDateTime(service.last_checked_at)}>
              {formatAgo(service.last_checked_at)}
            </time>
          </Fact>
          {service.description && <Fact term="Description">{service.description}</Fact>}
          {service.depends_on.length > 0 && (
            <Fact term="Depends on">
              <Dependencies ids={service.depends_on} />
            </Fact>
          )}
        </dl>
      </section>
      <LatestResult serviceId={service.id} />
      <LocationHistory service={service} />
      <UptimeCard serviceId={service.id} />
      <ChecksLog serviceId={service.id} />
    </Page>
  );
}

/** Why this service's failures open no alert now. */
function HeldNotice({ parents }: { parents: Service['suppressed_by'] }) {
  return (
    <p className="notice" role="status">
      Alerts are held: {parents.map((p, i) => (
        <span key={p.id}>
          {i > 0 && ', '}
          <Link to={`/services/${p.id}`}>{p.name}</Link>
        </span>
      ))}{' '}
      {parents.length > 1 ? 'are' : 'is'} RED. Failures of this service are recorded but notify nobody until then.
    </p>
  );
}

function Dependencies({ ids }: { ids: string[] }) {
  const services = useResourceList<Service>('/services', { sort: 'name', limit: 1000 });
  const names = new Map((services.data ?? []).map((s) => [s.id, s.name]));
  return (
    <ul className="dependency-list" aria-label="Depends on">
      {ids.map((id) => {
        return (
          <li key={id}>
            <Link to={`/services/${id}`}>{names.get(id) ?? id}</Link>
          </li>
        );
      })}
    </ul>
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function CheckNowButton({ serviceId }: { serviceId: string }) {
  const check = useCheckNow(serviceId);
  const [notice, setNotice] = useState<string>();
  return (
    <>
      <button
        type="button"
        className="primary"
        disabled={check.isPending}
        onClick={() => {
          setNotice(undefined);
          check.mutate(undefined, {
            onSuccess: () => setNotice('Check enqueued: the result appears here when it arrives.'),
            onError: (error) => setNotice(`The check could not be enqueued: ${error.message}`),
          });
        }}
      >
        Check now
      </button>
      {notice && (
        <p className="notice check-notice" role="status">
          {notice}
        </p>
      )}
    </>
  );
}
