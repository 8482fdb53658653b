// Per location: the latest result of each, the response time over the chosen period, and the
// phases (dns, connect, tls, ttfb, ...) the checks recorded. One request per location, under
// the service's history key so each live result refreshes them.
import { useQueries, type UseQueryResult } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import type { CheckResult, Service } from '../../api/types';
import { useOrg } from '../../session/session';
import { formatDateTime, formatMs } from '../../ui/format';
import { LoadError } from '../../ui/page';
import { StatusBadge } from '../../ui/status';
import { TimeChart, type TimeSeries } from './time-chart';

const PERIODS = { '1h': 3_600, '6h': 21_600, '24h': 86_400 } as const;
type ChartPeriod = keyof typeof PERIODS;
const MAX_LIMIT = 1000;
// Phases in the order a request goes through them; others a check type records follow.
const PHASE_ORDER = ['resolve_ms', 'dns_ms', 'connect_ms', 'tls_ms', 'handshake_ms', 'banner_ms', 'ttfb_ms', 'transfer_ms'];

export function LocationHistory({ service }: { service: Service }) {
  const org = useOrg();
  const [period, setPeriod] = useState<ChartPeriod>('1h');
  // Enough results to cover the period at the service's interval, within the API's limit.
  const limit = Math.min(MAX_LIMIT, Math.ceil(PERIODS[period] / service.check_interval_seconds) + 10);
  const locations = service.locations;
  const results = useQueries({
    queries: locations.map((location) => ({
      queryKey: [...queryKeys.serviceHistory(org, service.id), 'checks', { location, limit }],
      queryFn: () => api.get<CheckResult[]>(`/services/${service.id}/checks`, { location, limit }),
      placeholderData: (previous: CheckResult[] | undefined) => previous,
    })),
    combine: combineChecks,
  });
  const byLocation = useMemo(() => locations.map((location, i) => ({ location, checks: results.data[i] ?? [] })), [locations, results.data]);

  return (
    <>
      <section className="card" aria-labelledby="locations-title">
        <h2 id="locations-title">Status by location</h2>
        {results.failed && <LoadError error={results.failed.error} retry={() => void results.failed?.refetch()} />}
        <LatestByLocation rows={byLocation} />
      </section>
      <section className="card" aria-labelledby="response-title">
        <div className="card-header">
          <h2 id="response-title">Response time by location</h2>
          <div className="field">
            <label htmlFor="chart-period">Period</label>
            <select id="chart-period" value={period} onChange={(e) => setPeriod(e.target.value as ChartPeriod)}>
              <option value="1h">Last hour</option>
              <option value="6h">Last 6 hours</option>
              <option value="24h">Last 24 hours</option>
            </select>
          </div>
        </div>
        <ResponseChart rows={byLocation} periodSeconds={PERIODS[period]} />
      </section>
      <PhaseBreakdown rows={byLocation} />
    </>
  );
}

/** Stable while no query changes (a module-level combine is memoized by TanStack Query). */
function combineChecks(results: UseQueryResult<CheckResult[]>[]) {
  return { data: results.map((r) => r.data), failed: results.find((r) => r.isError) };
}

interface LocationChecks {
  location: string;
  /** Newest first. */
  checks: CheckResult[];
}

function LatestByLocation({ rows }: { rows: LocationChecks[] }) {
  return (
    <div className="table-scroll">
      <table className="row-headed">
        <thead>
          <tr>
            <th scope="col">Location</th>
            <th scope="col">Status</th>
            <th scope="col">Response time</th>
            <th scope="col">Checked at</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ location, checks }) => {
            const latest = checks[0];
            return (
              <tr key={location}>
                <th scope="row">{location}</th>
                <td>
                  <StatusBadge status={latest?.status} label={location} />
                </td>
                <td>{formatMs(latest?.response_time_ms)}</td>
                <td>{latest ? formatDateTime(latest.checked_at) : 'No result yet'}</td>
                <td className="check-message">{latest?.message ?? ''}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Aligns each location's results on one time axis (uPlot wants one x array). */
function alignSeries(series: { label: string; points: [number, number | null][] }[]): { times: number[]; series: TimeSeries[] } {
  const times = [...new Set(series.flatMap((s) => s.points.map(([t]) => t)))].sort((a, b) => a - b);
  const index = new Map(times.map((t, i) => [t, i]));
  return {
    times,
    series: series.map((s) => {
      const values: (number | null)[] = new Array(times.length).fill(null);
      for (const [t, v] of s.points) values[index.get(t)!] = v;
      return { label: s.label, values };
    }),
  };
}

const secondsOf = (check: CheckResult) => new Date(check.checked_at).getTime() / 1000;

function ResponseChart({ rows, periodSeconds }: { rows: LocationChecks[]; periodSeconds: number }) {
  const data = useMemo(() => {
    const since = Date.now() / 1000 - periodSeconds;
    return alignSeries(
      rows.map(({ location, checks }) => ({
        label: location,
        points: checks.filter((c) => secondsOf(c) >= since).map((c): [number, number | null] => [secondsOf(c), c.response_time_ms]),
      })),
    );
  }, [rows, periodSeconds]);
  if (data.times.length === 0) return <p className="muted">No checks in this period yet.</p>;
  return <TimeChart label={`Response time by location: ${rows.map((r) => r.location).join(', ')}`} times={data.times} series={data.series} />;
}

function phasesOf(check: CheckResult | undefined): [string, number][] {
  if (!check) return [];
  const phases = Object.entries(check.details).filter((e): e is [string, number] => e[0].endsWith('_ms') && typeof e[1] === 'number');
  const rank = (key: string) => (PHASE_ORDER.includes(key) ? PHASE_ORDER.indexOf(key) : PHASE_ORDER.length);
  return phases.sort((a, b) => rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]));
}

const phaseName = (key: string) => key.replace(/_ms$/, '').toUpperCase();

function PhaseBreakdown({ rows }: { rows: LocationChecks[] }) {
  const [chosen, setChosen] = useState('');
  const location = rows.find((r) => r.location === chosen) ?? rows.find((r) => r.checks.length > 0) ?? rows[0];
  const phaseKeys = useMemo(() => [...new Set(rows.flatMap((r) => phasesOf(r.checks[0]).map(([k]) => k)))], [rows]);
  const chart = useMemo(() => {
    const recent = [...(location?.checks ?? [])].slice(0, 60).reverse();
    const keys = [...new Set(recent.flatMap((c) => phasesOf(c).map(([k]) => k)))];
    return alignSeries(keys.map((key) => ({ label: phaseName(key), points: recent.map((c): [number, number | null] => [secondsOf(c), numberOrNull(c.details[key])]) })));
  }, [location]);

  return (
    <section className="card" aria-labelledby="phases-title">
      <h2 id="phases-title">Phases</h2>
      {phaseKeys.length === 0 ? (
        <p className="muted">The checks of this type record no phase timings yet.</p>
      ) : (
        <>
          <h3>Latest check by location</h3>
          <div className="table-scroll">
            <table className="row-headed">
              <thead>
                <tr>
                  <th scope="col">Location</th>
                  {phaseKeys.map((k) => (
                    <th scope="col" key={k}>
                      {phaseName(k)}
                    </th>
                  ))}
                  <th scope="col">Total</th>
                </tr>
              </thead>
              <tbody>
                {rows.map(({ location: name, checks }) => {
                  const phases = new Map(phasesOf(checks[0]));
                  return (
                    <tr key={name}>
                      <th scope="row">{name}</th>
                      {phaseKeys.map((k) => (
                        <td key={k}>{formatMs(phases.get(k))}</td>
                      ))}
                      <td>{formatMs(checks[0]?.response_time_ms)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <div className="card-header phase-chart-header">
            <h3>Recent checks from {location?.location}</h3>
            {rows.length > 1 && (
              <div className="field">
                <label htmlFor="phase-location">Location</label>
                <select id="phase-location" value={location?.location ?? ''} onChange={(e) => setChosen(e.target.value)}>
                  {rows.map((r) => (
                    <option key={r.location}>{r.location}</option>
                  ))}
                </select>
              </div>
            )}
          </div>
          {chart.times.length > 0 && <TimeChart label={`Phases of recent checks from ${location?.location}`} times={chart.times} series={chart.series} height={200} />}
        </>
      )}
    </section>
  );
}

const numberOrNull = (value: unknown) => (typeof value === 'number' ? value : null);
