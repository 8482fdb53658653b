// One service: what it checks, its latest result's assertions and steps, its status now and
// per location, response times and phases, uptime and the checks log, all refreshed by the
// live feed; write actions for members+, Pause/Resume among them.
import { useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useResourceList } from '../../api/resources';
import type { Service } from '../../api/types';
import { useSession } from '../../session/session';
import { DeleteButton } from '../../ui/delete-button';
import { formatAgo, formatDateTime } from '../../ui/format';
import { LoadError, Loading, Page } from '../../ui/page';
import { FlappingBadge, PausedBadge, StaleNote, StatusBadge } from '../../ui/status';
import { ChecksLog } from './checks-log';
import { LatestResult } from './latest-result';
import { LocationHistory } from './location-history';
import { useCheckNow, useDeleteService, usePauseService, useService } from './service-api';
import { UptimeCard } from './uptime-card';
import { BadgesCard } from './badges-card';
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
            {!service.paused && <CheckNowButton serviceId={service.id} />}
            <PauseButton service={service} />
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
      {service.paused && (
        <p className="notice" role="status">
          Paused: no agent checks this service and it opens no alert. Its status is the one it had when it was paused.
        </p>
      )}
      {service.stale && (
        <p className="notice stale-notice" role="status">
          {service.last_result_at ? `No data since ${formatDateTime(service.last_result_at)}` : 'No data yet'}: no result has arrived for three check intervals (at least 90 s).
          The status shown is the last one known.
        </p>
      )}
      {service.suppressed_by.length > 0 && <HeldNotice parents={service.suppressed_by} />}
      <section className="card" aria-label="About this service">
        <dl className="service-facts">
          <Fact term="Status" className={service.stale ? 'stale' : undefined}>
            {service.paused && <PausedBadge status={service.status} />} <StatusBadge status={service.status} label={service.paused ? 'Last status' : undefined} />
            {service.flapping === true && <FlappingBadge />}
            {service.stale && <StaleNote since={service.last_result_at} />}
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
      <BadgesCard service={service} />
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

function Fact({ term, children, className }: { term: string; children: ReactNode; className?: string }) {
  return (
    <div className={className}>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** Stops or restarts the service's checks; the answer is the service as saved. */
function PauseButton({ service }: { service: Service }) {
  const pause = usePauseService(service.id);
  return (
    <>
      <button type="button" disabled={pause.isPending} onClick={() => pause.mutate(!service.paused)}>
        {service.paused ? 'Resume' : 'Pause'}
      </button>
      {pause.isError && (
        <p className="form-error" role="alert">
          {service.paused ? 'The service could not be resumed' : 'The service could not be paused'}: {pause.error.message}
        </p>
      )}
    </>
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
