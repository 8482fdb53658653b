// The newest result of a service, from any location, when it says more than its status: its
// assertions with the values they judged, a MULTISTEP run's steps, a failed response saved.
import { formatAgo, formatDateTime, formatMs } from '../../ui/format';
import { StatusBadge } from '../../ui/status';
import { hasOutcomeDetails, OutcomeDetails } from './check-outcome';
import { useChecks } from './service-api';

export function LatestResult({ serviceId }: { serviceId: string }) {
  const checks = useChecks(serviceId, { limit: 1 });
  const latest = checks.data?.[0];
  if (!latest || !hasOutcomeDetails(latest.details)) return null;
  return (
    <section className="card" aria-labelledby="latest-result-title">
      <h2 id="latest-result-title">Latest result</h2>
      <p>
        <StatusBadge status={latest.status} /> from {latest.location},{' '}
        <time dateTime={latest.checked_at} title={formatDateTime(latest.checked_at)}>
          {formatAgo(latest.checked_at)}
        </time>
        , {formatMs(latest.response_time_ms)}
      </p>
      {latest.message && <p className="check-message">{latest.message}</p>}
      <OutcomeDetails details={latest.details} />
    </section>
  );
}
