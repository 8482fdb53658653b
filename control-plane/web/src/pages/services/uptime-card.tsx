// Uptime over the four periods the API keeps rollups for.
import { formatPercent } from '../../ui/format';
import { useUptime } from './service-api';
import type { Period } from './types';

const PERIODS: [Period, string][] = [
  ['24h', '24 hours'],
  ['7d', '7 days'],
  ['30d', '30 days'],
  ['90d', '90 days'],
];

export function UptimeCard({ serviceId }: { serviceId: string }) {
  return (
    <section className="card" aria-labelledby="uptime-title">
      <h2 id="uptime-title">Uptime</h2>
      <dl className="uptime-cards">
        {PERIODS.map(([period, label]) => (
          <UptimePeriod key={period} serviceId={serviceId} period={period} label={label} />
        ))}
      </dl>
    </section>
  );
}

function UptimePeriod({ serviceId, period, label }: { serviceId: string; period: Period; label: string }) {
  const uptime = useUptime(serviceId, period);
  const data = uptime.data;
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        {uptime.isError ? 'unavailable' : data ? formatPercent(data.uptime_percentage) : '…'}
        {data && (
          <small>
            {data.successful_checks} of {data.total_checks} checks up
          </small>
        )}
      </dd>
    </div>
  );
}
