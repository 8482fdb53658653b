// Who hears of a status page's incidents and maintenance: e-mail addresses (once confirmed)
// and webhooks, with the components each chose. Admins export them as CSV and remove them.
import type { z } from 'zod';
import type { SubscriberJson } from '../../../../src/features/subscribers/subscribers.schema';
import { apiDownload } from '../../api/http';
import { useDeleteResource, useResourceList } from '../../api/resources';
import { DeleteButton } from '../../ui/delete-button';
import { DownloadButton } from '../../ui/download-button';
import { formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { QueryState } from '../../ui/query-state';
import type { NamedService } from './incidents/affected-services';
import type { StatusPage } from './status-page-types';

type Subscriber = z.infer<typeof SubscriberJson>;

export function Subscribers({ page, services }: { page: StatusPage; services: NamedService[] }) {
  const path = `/status-pages/${page.id}/subscribers`;
  const subscribers = useResourceList<Subscriber>(path);
  const remove = useDeleteResource(path);
  const nameOf = (id: string) => services.find((s) => s.id === id)?.name ?? 'a removed service';
  return (
    <section className="card" aria-labelledby="subscribers-title">
      <header className="section-header">
        <h2 id="subscribers-title">Subscribers</h2>
        <div className="row-actions">
          <DownloadButton label="Download CSV" download={() => apiDownload(`${path}.csv`, { filename: `${page.slug}-subscribers.csv` })} disabled={!subscribers.data?.length} />
        </div>
      </header>
      <QueryState query={subscribers} what="subscribers" empty="Nobody has subscribed yet. Visitors subscribe on the public page.">
        {(data) => (
          <ListTable columns={['Address', 'Kind', 'Components', 'Confirmed', 'Subscribed']} actions>
            {data.map((subscriber) => {
              const address = subscriber.email ?? subscriber.webhook_url ?? '';
              return (
                <tr key={subscriber.id}>
                  <td className="mono">{address}</td>
                  <td>{subscriber.email ? 'E-mail' : 'Webhook'}</td>
                  <td>{subscriber.component_ids.length === 0 ? 'All' : subscriber.component_ids.map(nameOf).join(', ')}</td>
                  <td>{subscriber.confirmed ? formatDateTime(subscriber.confirmed_at) : <span className="muted">Awaiting confirmation</span>}</td>
                  <td>{formatDateTime(subscriber.created_at)}</td>
                  <td>
                    <DeleteButton label="Remove" what={`subscriber ${address}`} onDelete={() => remove.mutateAsync(subscriber.id)} />
                  </td>
                </tr>
              );
            })}
          </ListTable>
        )}
      </QueryState>
    </section>
  );
}
