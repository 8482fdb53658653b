// Every place services are checked from: the embedded agent's `local` and each location of
// the organization's agents and services, with the agents serving it and the services it checks.
import { Link } from 'react-router';
import { EMBEDDED_LOCATION } from '../agents/agent-types';
import { LoadError, Loading, Page } from '../../ui/page';
import { knownLocations, useAgents, useServiceCounts, useServicesSummary } from './location-data';

export default function LocationsPage() {
  const agents = useAgents();
  const summary = useServicesSummary();
  const agentList = agents.data ?? [];
  const locations = knownLocations(agentList, summary.data);
  const serviceCounts = useServiceCounts(locations);

  if (agents.isPending || summary.isPending)
    return (
      <Page title="Locations">
        <Loading what="locations" />
      </Page>
    );
  const error = agents.error ?? summary.error;
  if (error)
    return (
      <Page title="Locations">
        <LoadError error={error} retry={() => void Promise.all([agents.refetch(), summary.refetch()])} />
      </Page>
    );

  return (
    <Page title="Locations">
      <p className="muted">Where services are checked from: each location is served by the agents registered for it.</p>
      <table>
        <thead>
          <tr>
            <th scope="col">Location</th>
            <th scope="col">Agents online</th>
            <th scope="col">Services checked</th>
          </tr>
        </thead>
        <tbody>
          {locations.map((location) => {
            const serving = agentList.filter((a) => a.location === location);
            const online = serving.filter((a) => a.status === 'online').length;
            const count = serviceCounts.get(location);
            return (
              <tr key={location}>
                <td>
                  <Link to={`/locations/${encodeURIComponent(location)}`}>{location}</Link>
                </td>
                <td>{location === EMBEDDED_LOCATION && serving.length === 0 ? 'built into the control plane' : `${online} of ${serving.length} online`}</td>
                <td>{count === undefined ? '…' : `${count} ${count === 1 ? 'service' : 'services'}`}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </Page>
  );
}
