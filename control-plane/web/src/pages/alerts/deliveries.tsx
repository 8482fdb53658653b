// Where an alert's notifications went: one row per channel (or person) and event, with the
// outcome of its attempts. Pending deliveries are polled until they settle, since the feed
// does not announce them.
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useResourceList } from '../../api/resources';
import { useOrg } from '../../session/session';
import { formatDateTime } from '../../ui/format';
import { LoadError, Loading } from '../../ui/page';
import type { Channel } from '../channels/channel-types';

interface Delivery {
  id: string;
  channel_id: string | null;
  recipient: string | null;
  event: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

const EVENT_TEXT: Record<string, string> = { alert_fired: 'Fired', alert_acknowledged: 'Acknowledged', alert_resolved: 'Resolved' };

export function Deliveries({ alertId }: { alertId: string }) {
  const org = useOrg();
  const deliveries = useQuery({
    queryKey: [...queryKeys.alerts(org), 'deliveries', alertId],
    queryFn: () => api.get<Delivery[]>(`/alerts/${alertId}/deliveries`),
    refetchInterval: (query) => (query.state.data?.some((d) => d.status === 'pending') ? 2000 : false),
  });
  const channels = useResourceList<Channel>('/notification-channels');
  const channelName = (id: string | null) => (id ? (channels.data?.find((c) => c.id === id)?.name ?? 'a deleted channel') : null);

  if (deliveries.isPending) return <Loading what="deliveries" />;
  if (deliveries.isError) return <LoadError error={deliveries.error} retry={() => void deliveries.refetch()} />;
  if (deliveries.data.length === 0) return <p className="muted">Nothing was delivered for this alert: no channel was enabled when it fired.</p>;
  return (
    <div className="deliveries-scroll">
      <table aria-label="Deliveries">
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last error</th>
            <th scope="col">Queued</th>
            <th scope="col">Delivered</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data.map((d) => (
            <tr key={d.id}>
              <td>{channelName(d.channel_id) ?? `E-mail to ${d.recipient}`}</td>
              <td>{EVENT_TEXT[d.event] ?? d.event}</td>
              <td>
                {d.status}
                {d.next_attempt_at && <span className="muted"> (next attempt {formatDateTime(d.next_attempt_at)})</span>}
              </td>
              <td>{d.attempts}</td>
              <td>{d.last_error ?? '—'}</td>
              <td>{formatDateTime(d.created_at)}</td>
              <td>{formatDateTime(d.delivered_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
