// The raw results, newest first, a page at a time. "Older" pages back from the last result
// shown; the newest page stays live (the feed refreshes the service's history).
import { useState } from 'react';
import { formatDateTime, formatMs } from '../../ui/format';
import { LoadError } from '../../ui/page';
import { StatusBadge } from '../../ui/status';
import { useChecks } from './service-api';

const PAGE_SIZE = 20;

export function ChecksLog({ serviceId }: { serviceId: string }) {
  // The `before` cursors of the pages gone back through; empty: the newest page.
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors.at(-1);
  const checks = useChecks(serviceId, { limit: PAGE_SIZE, before });
  const rows = checks.data ?? [];
  const oldest = rows.at(-1);

  return (
    <section className="card" aria-labelledby="checks-title">
      <h2 id="checks-title">Checks log</h2>
      {checks.isError && <LoadError error={checks.error} retry={() => void checks.refetch()} />}
      {checks.isPending ? (
        <p className="muted">Loading checks…</p>
      ) : rows.length === 0 ? (
        <p className="muted">{before ? 'No older checks.' : 'No checks yet.'}</p>
      ) : (
        <div className="table-scroll">
          <table>
            <caption className="muted">{before ? `Checks before ${formatDateTime(before)}` : 'Latest checks'}</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Location</th>
                <th scope="col">Status</th>
                <th scope="col">Response time</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((check) => (
                <tr key={check.id}>
                  <td>{formatDateTime(check.checked_at)}</td>
                  <td>{check.location}</td>
                  <td>
                    <StatusBadge status={check.status} />
                  </td>
                  <td>{formatMs(check.response_time_ms)}</td>
                  <td className="check-message">{check.message ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="pager">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </button>
        <button type="button" disabled={!oldest || rows.length < PAGE_SIZE} onClick={() => oldest && setCursors((c) => [...c, oldest.checked_at])}>
          Older
        </button>
      </div>
    </section>
  );
}
