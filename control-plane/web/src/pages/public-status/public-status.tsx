// The public status page at /status/{slug}: no sign-in, no shell. Each service with its status
// in words and 90 daily uptime bars (each bar named for screen readers), and open incidents.
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useParams } from 'react-router';
import { ApiError, apiRequest } from '../../api/http';
import type { Status } from '../../api/types';
import { formatDateTime, formatPercent } from '../../ui/format';
import { LoadError, Loading } from '../../ui/page';
import { StatusBadge } from '../../ui/status';
import './public-status.css';

interface UptimeBar {
  date: string;
  total_checks: number;
  successful_checks: number;
  uptime_percentage: number | null;
}

interface PublicService {
  id: string;
  name: string;
  status: Status | null;
  last_checked_at: string | null;
  uptime_percentage: number | null;
  uptime_bars: UptimeBar[];
  /** Services it depends on that are RED now. */
  affected: boolean;
  affected_by: { id: string; name: string }[];
}

interface Incident {
  id: string;
  service_name: string;
  title: string;
  severity: string;
  status: 'firing' | 'acknowledged';
  started_at: string;
  acknowledged_at: string | null;
}

interface PublicStatusPage {
  slug: string;
  title: string;
  description: string | null;
  overall_status: Status | null;
  /** The overall status in words, affected services included. */
  overall_message: string;
  generated_at: string;
  services: PublicService[];
  incidents: Incident[];
}

/** The server caches the page for 30 s; asking more often would show nothing new. */
const REFRESH_MS = 60_000;

export default function PublicStatusPage() {
  const slug = useParams().slug ?? '';
  const page = useQuery({
    queryKey: ['public-status', slug],
    queryFn: async () => (await apiRequest<PublicStatusPage>('GET', `/status-pages/${encodeURIComponent(slug)}/public`, { token: null })).body,
    refetchInterval: REFRESH_MS,
  });
  const title = page.data?.title ?? (page.error instanceof ApiError && page.error.status === 404 ? 'Status page not found' : 'Status');
  useEffect(() => {
    document.title = title;
  }, [title]);

  return (
    <main className="public-status">
      {page.isPending ? (
        <Loading what="the status page" />
      ) : page.error instanceof ApiError && page.error.status === 404 ? (
        <NotFound />
      ) : page.isError ? (
        <LoadError error={page.error} retry={() => page.refetch()} />
      ) : (
        <StatusPageView page={page.data} />
      )}
    </main>
  );
}

function NotFound() {
  return (
    <header>
      <h1>This status page does not exist</h1>
      <p className="muted">Check the address, or ask whoever sent you the link.</p>
    </header>
  );
}

function StatusPageView({ page }: { page: PublicStatusPage }) {
  return (
    <>
      <header>
        <h1>{page.title}</h1>
        {page.description && <p>{page.description}</p>}
      </header>
      <p className="public-overall">
        <StatusBadge status={page.overall_status} label="Overall status" />
        {page.overall_message}
      </p>
      {page.incidents.length > 0 && <Incidents incidents={page.incidents} />}
      <section aria-labelledby="public-services-title">
        <h2 id="public-services-title">Services</h2>
        <ul className="public-services">
          {page.services.map((service) => (
            <ServiceRow key={service.id} service={service} />
          ))}
        </ul>
      </section>
      <p className="public-footer">Updated {formatDateTime(page.generated_at)}. Powered by Outpost.</p>
    </>
  );
}

function ServiceRow({ service }: { service: PublicService }) {
  const headingId = `service-${service.id}`;
  return (
    <li className="public-service" aria-labelledby={headingId}>
      <div className="public-service-head">
        <h3 id={headingId}>{service.name}</h3>
        <StatusBadge status={service.status} />
      </div>
      {service.affected && (
        <p className="public-affected">
          {service.affected_by.length > 0 ? `Affected by ${service.affected_by.map((d) => d.name).join(', ')}` : 'Affected by an outage of a service it depends on'}
        </p>
      )}
      <UptimeBars service={service} />
      <p className="uptime-legend">
        <span>{service.uptime_bars.length} days ago</span>
        <span>{formatPercent(service.uptime_percentage)} uptime</span>
        <span>Today</span>
      </p>
    </li>
  );
}

/** Whole percents where exact, else up to two decimals: "100% up", "99.5% up". */
function barLabel(bar: UptimeBar): string {
  return bar.uptime_percentage === null ? `${bar.date}: no data` : `${bar.date}: ${Number(bar.uptime_percentage.toFixed(2))}% up`;
}

function barClass(bar: UptimeBar): string {
  if (bar.uptime_percentage === null) return 'uptime-bar';
  if (bar.uptime_percentage >= 99.9) return 'uptime-bar up-full';
  return bar.uptime_percentage >= 95 ? 'uptime-bar up-some' : 'uptime-bar up-low';
}

function UptimeBars({ service }: { service: PublicService }) {
  return (
    <div className="uptime-bars" role="group" aria-label={`Daily uptime of ${service.name}, last ${service.uptime_bars.length} days`}>
      {service.uptime_bars.map((bar) => {
        const label = barLabel(bar);
        return <span key={bar.date} className={barClass(bar)} role="img" aria-label={label} title={label} />;
      })}
    </div>
  );
}

function Incidents({ incidents }: { incidents: Incident[] }) {
  return (
    <section aria-labelledby="public-incidents-title">
      <h2 id="public-incidents-title">Open incidents</h2>
      <ul className="public-incidents">
        {incidents.map((incident) => (
          <li key={incident.id} className={incident.status}>
            <strong>{incident.service_name}</strong>: {incident.title}
            <br />
            <span className="muted">
              {incident.status === 'acknowledged' ? 'Being worked on' : 'Investigating'} since {formatDateTime(incident.started_at)}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
