// The page's services: each with its status in words (or "Under maintenance") and 90 daily
// uptime bars (each named for screen readers); components first, each folding open or shut
// under its name and worst status, then the services in no component.
import { useId, useState } from 'react';
import type { Status } from '../../api/types';
import { formatPercent } from '../../ui/format';
import { StatusBadge } from '../../ui/status';
import type { PublicGroup, PublicService } from './public-types';

export function Components({ services, groups }: { services: PublicService[]; groups: PublicGroup[] }) {
  const byId = new Map(services.map((s) => [s.id, s]));
  const ungrouped = services.filter((s) => s.group === null);
  return (
    <section aria-labelledby="public-services-title">
      <h2 id="public-services-title">Services</h2>
      {groups.map((group, i) => (
        <Group key={`${i}-${group.name}`} group={group} services={group.service_ids.flatMap((id) => byId.get(id) ?? [])} />
      ))}
      {ungrouped.length > 0 && (
        <ul className="public-services">
          {ungrouped.map((service) => (
            <ServiceRow key={service.id} service={service} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ServiceState({ status, underMaintenance, label }: { status: Status | null; underMaintenance: boolean; label?: string }) {
  if (!underMaintenance) return <StatusBadge status={status} label={label} />;
  return (
    <span className="status status-maintenance" aria-label={label ? `${label}: Under maintenance` : undefined}>
      <span className="status-dot" aria-hidden="true" />
      Under maintenance
    </span>
  );
}

function Group({ group, services }: { group: PublicGroup; services: PublicService[] }) {
  const id = useId();
  const [open, setOpen] = useState(true);
  return (
    <section className="public-group" aria-labelledby={`${id}-title`}>
      <div className="public-group-head">
        <h3 id={`${id}-title`}>
          <button type="button" className="public-group-toggle" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
            <span aria-hidden="true">{open ? '▾' : '▸'}</span> {group.name}
          </button>
        </h3>
        <ServiceState status={group.status} underMaintenance={group.under_maintenance} label={`${group.name} status`} />
      </div>
      <ul className="public-services" id={id} hidden={!open}>
        {services.map((service) => (
          <ServiceRow key={service.id} service={service} level={4} />
        ))}
      </ul>
    </section>
  );
}

function ServiceRow({ service, level = 3 }: { service: PublicService; level?: 3 | 4 }) {
  const headingId = `service-${service.id}`;
  const Heading = level === 3 ? 'h3' : 'h4';
  return (
    <li className="public-service" aria-labelledby={headingId}>
      <div className="public-service-head">
        <Heading id={headingId}>{service.name}</Heading>
        <ServiceState status={service.status} underMaintenance={service.under_maintenance} />
      </div>
      {service.affected && !service.under_maintenance && (
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

type UptimeBar = PublicService['uptime_bars'][number];

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
