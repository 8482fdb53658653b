// Open incidents: those the team wrote, each with its timeline (newest update first), then
// open alerts of the page's services when the page mirrors them.
import { formatDateTime } from '../../ui/format';
import { IMPACT_TEXT, INCIDENT_STATUS_TEXT, type AlertIncident, type PublicIncident, type WrittenIncident } from './public-types';

export function OpenIncidents({ incidents }: { incidents: PublicIncident[] }) {
  return (
    <section aria-labelledby="public-incidents-title">
      <h2 id="public-incidents-title">Open incidents</h2>
      <ul className="public-incidents">
        {incidents.map((incident) =>
          incident.source === 'written' ? (
            <li key={incident.id} className={`written impact-${incident.impact}`}>
              <WrittenIncidentView incident={incident} />
            </li>
          ) : (
            <AlertIncidentItem key={incident.id} incident={incident} />
          ),
        )}
      </ul>
    </section>
  );
}

type Timed = Pick<WrittenIncident, 'title' | 'status' | 'impact' | 'started_at' | 'resolved_at' | 'affected' | 'updates'>;

/** A written incident: its title, impact, affected services and updates, newest first. */
export function WrittenIncidentView({ incident, headingLevel = 3 }: { incident: Timed; headingLevel?: 3 | 4 }) {
  const Heading = headingLevel === 3 ? 'h3' : 'h4';
  return (
    <article aria-label={incident.title}>
      <Heading className="public-incident-title">{incident.title}</Heading>
      <p className="public-incident-meta">
        <span className={`incident-status incident-status-${incident.status}`}>{INCIDENT_STATUS_TEXT[incident.status]}</span>
        <span>{IMPACT_TEXT[incident.impact]}</span>
        {incident.affected.length > 0 && <span>Affects {incident.affected.map((a) => a.service_name).join(', ')}</span>}
        <span>
          {formatDateTime(incident.started_at)}
          {incident.resolved_at && ` – ${formatDateTime(incident.resolved_at)}`}
        </span>
      </p>
      <ol className="public-timeline" aria-label={`Updates of ${incident.title}`}>
        {[...incident.updates].reverse().map((update) => (
          <li key={update.id}>
            <p className="public-update-head">
              <strong>{INCIDENT_STATUS_TEXT[update.status]}</strong> <time dateTime={update.created_at}>{formatDateTime(update.created_at)}</time>
            </p>
            <p className="public-update-message">{update.message}</p>
          </li>
        ))}
      </ol>
    </article>
  );
}

function AlertIncidentItem({ incident }: { incident: AlertIncident }) {
  return (
    <li className={incident.status}>
      <strong>{incident.service_name}</strong>: {incident.title}
      <br />
      <span className="muted">
        {incident.status === 'acknowledged' ? 'Being worked on' : 'Investigating'} since {formatDateTime(incident.started_at)}
      </span>
    </li>
  );
}
