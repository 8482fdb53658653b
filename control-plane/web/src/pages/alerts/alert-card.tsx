// One alert: what fired, on which service, who acknowledged or resolved it and when, the
// buttons that do so (for members and above) and, on demand, its deliveries.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import type { Alert } from '../../api/types';
import { useOrg, useSession } from '../../session/session';
import { formatAgo, formatDateTime } from '../../ui/format';
import { Deliveries } from './deliveries';
import { OpenIncidentButton } from './open-incident';
import { SilencedNote, SnoozeMenu } from './snooze';

const STATUS_TEXT: Record<Alert['status'], string> = { firing: 'Firing', acknowledged: 'Acknowledged', resolved: 'Resolved' };

function When({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatDateTime(iso)} ({formatAgo(iso)})
    </time>
  );
}

/** What the alert is about: its service, or (no service) the silent agent and its location, or the dark location. */
function Subject({ alert }: { alert: Alert }) {
  if (alert.service_id) {
    return (
      <div>
        <dt>Service</dt>
        <dd>
          <Link to={`/services/${alert.service_id}`}>{alert.service_name}</Link>
        </dd>
      </div>
    );
  }
  return (
    <>
      {alert.kind === 'agent_offline' && (
        <div>
          <dt>Agent</dt>
          <dd>{alert.service_name}</dd>
        </div>
      )}
      <div>
        <dt>Location</dt>
        <dd>{alert.location ? <Link to={`/locations/${encodeURIComponent(alert.location)}`}>{alert.location}</Link> : '—'}</dd>
      </div>
    </>
  );
}

export function AlertCard({ alert, personName }: { alert: Alert; personName(userId: string): string }) {
  const { canWrite } = useSession();
  const org = useOrg();
  const client = useQueryClient();
  const titleId = useId();
  const [showDeliveries, setShowDeliveries] = useState(false);
  const change = useMutation({
    mutationFn: (action: 'acknowledge' | 'resolve') => api.post<Alert>(`/alerts/${alert.id}/${action}`),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.alerts(org) }),
  });
  // Someone without a user id (an API key) can act too; the API then records no person.
  const by = (userId: string | null, otherwise: string) => (userId ? `by ${personName(userId)}` : otherwise);
  // A resolved alert may keep the id of the silence it had; only an open one is silenced now.
  const silenced = alert.status !== 'resolved' ? alert.silenced_by : null;

  return (
    <article className={`card alert-card alert-${alert.status}`} aria-labelledby={titleId}>
      <header className="alert-header">
        <h2 id={titleId}>{alert.title}</h2>
        <p className="alert-tags">
          <span className={`alert-status alert-status-${alert.status}`}>{STATUS_TEXT[alert.status]}</span>
          <span className={`severity severity-${alert.severity}`}>Severity: {alert.severity}</span>
          {silenced && <span className="alert-status alert-silenced">Silenced</span>}
        </p>
      </header>
      {alert.message && <p className="alert-message">{alert.message}</p>}
      {silenced && <SilencedNote silenceId={silenced} />}
      <dl className="alert-facts">
        <Subject alert={alert} />
        <div>
          <dt>Fired</dt>
          <dd>
            <When iso={alert.fired_at} />
          </dd>
        </div>
        <div>
          <dt>Last fired</dt>
          <dd>
            <When iso={alert.last_fired_at} />
          </dd>
        </div>
        <div>
          <dt>Acknowledgement</dt>
          <dd>
            {alert.acknowledged_at ? (
              <>
                <When iso={alert.acknowledged_at} /> {by(alert.acknowledged_by, 'with an API key')}
              </>
            ) : (
              'Not acknowledged'
            )}
          </dd>
        </div>
        <div>
          <dt>Resolution</dt>
          <dd>
            {alert.resolved_at ? (
              <>
                <When iso={alert.resolved_at} /> {by(alert.resolved_by, 'automatically')}
              </>
            ) : (
              'Not resolved'
            )}
          </dd>
        </div>
      </dl>
      {change.isError && (
        <p className="form-error" role="alert">
          {change.error.message}
        </p>
      )}
      <div className="alert-actions">
        {canWrite && alert.status === 'firing' && (
          <button type="button" className="primary" disabled={change.isPending} onClick={() => change.mutate('acknowledge')} aria-label={`Acknowledge ${alert.title}`}>
            Acknowledge
          </button>
        )}
        {canWrite && alert.status !== 'resolved' && (
          <button type="button" disabled={change.isPending} onClick={() => change.mutate('resolve')} aria-label={`Resolve ${alert.title}`}>
            Resolve
          </button>
        )}
        {canWrite && alert.service_id && alert.status !== 'resolved' && !silenced && <SnoozeMenu alert={alert} serviceId={alert.service_id} />}
        {canWrite && alert.service_id && <OpenIncidentButton alert={alert} serviceId={alert.service_id} />}
        <button type="button" aria-expanded={showDeliveries} aria-controls={`${titleId}-deliveries`} onClick={() => setShowDeliveries((v) => !v)}>
          {showDeliveries ? 'Hide deliveries' : 'Show deliveries'}
        </button>
      </div>
      <div id={`${titleId}-deliveries`} hidden={!showDeliveries}>
        {showDeliveries && <Deliveries alertId={alert.id} />}
      </div>
    </article>
  );
}
