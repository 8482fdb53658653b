// One location: the agents that serve it and the services checked from it, each with its
// latest result there (live: the overview cache is patched by the feed).
import { Link, useParams } from 'react-router';
import type { OverviewRow } from '../../api/types';
import { formatAgo, formatDateTime, formatMs } from '../../ui/format';
import { Empty, LoadError, Loading, Page } from '../../ui/page';
import { StatusBadge } from '../../ui/status';
import { AgentStatus } from '../agents/agent-status';
import { EMBEDDED_LOCATION, type Agent } from '../agents/agent-types';
import { useAgents, useLocationServices } from './location-data';

/** Enough for a location page; more are counted and reachable from the services overview. */
const SERVICES_SHOWN = 500;

export default function LocationPage() {
  const name = useParams().name ?? '';
  const agents = useAgents();
  const services = useLocationServices(name, SERVICES_SHOWN);
  const serving = (agents.data ?? []).filter((a) => a.location === name);

  return (
    <Page title={`Location ${name}`}>
      <p>
        <Link to="/locations">All locations</Link>
      </p>
      <section aria-labelledby="location-agents">
        <h2 id="location-agents">Agents</h2>
        {name === EMBEDDED_LOCATION && <p className="muted">The agent built into the control plane checks from this location for every organization.</p>}
        {agents.isPending ? (
          <Loading what="agents" />
        ) : agents.isError ? (
          <LoadError error={agents.error} retry={() => agents.refetch()} />
        ) : serving.length === 0 ? (
          <Empty>No agents of this organization serve {name}.</Empty>
        ) : (
          <LocationAgents agents={serving} />
        )}
      </section>
      <section aria-labelledby="location-services">
        <h2 id="location-services">Services {services.data && `(${services.data.total})`}</h2>
        {services.isPending ? (
          <Loading what="services" />
        ) : services.isError ? (
          <LoadError error={services.error} retry={() => services.refetch()} />
        ) : services.data.services.length === 0 ? (
          <Empty>No services are checked from {name}.</Empty>
        ) : (
          <>
            <LocationServices location={name} rows={services.data.services} />
            {services.data.total > services.data.services.length && (
              <p className="muted">
                Showing {services.data.services.length} of {services.data.total}; <Link to={`/services?location=${encodeURIComponent(name)}`}>see all in the services overview</Link>.
              </p>
            )}
          </>
        )}
      </section>
    </Page>
  );
}

function LocationAgents({ agents }: { agents: Agent[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Status</th>
          <th scope="col">Version</th>
          <th scope="col">Hostname</th>
          <th scope="col">Last seen</th>
        </tr>
      </thead>
      <tbody>
        {agents.map((agent) => (
          <tr key={agent.id}>
            <td>{agent.name}</td>
            <td>
              <AgentStatus status={agent.status} />
            </td>
            <td>{agent.version ?? '—'}</td>
            <td>{agent.hostname ?? '—'}</td>
            <td title={formatDateTime(agent.last_seen_at)}>{formatAgo(agent.last_seen_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LocationServices({ location, rows }: { location: string; rows: OverviewRow[] }) {
  return (
    <table>
      <thead>
        <tr>
          <th scope="col">Service</th>
          <th scope="col">Status here</th>
          <th scope="col">Response time</th>
          <th scope="col">Checked</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const here = row.location_statuses.find((l) => l.location === location);
          return (
            <tr key={row.id}>
              <td>
                <Link to={`/services/${row.id}`}>{row.name}</Link>
              </td>
              <td>
                <StatusBadge status={here?.status} label={`${row.name} at ${location}`} />
              </td>
              <td>{formatMs(here?.response_time_ms)}</td>
              <td title={formatDateTime(here?.checked_at)}>{formatAgo(here?.checked_at)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
