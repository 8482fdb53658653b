// Past incidents and maintenance of the last 90 days, newest first, ten at a time with
// "Older" for the next ten.
import { formatDateTime } from '../../ui/format';
import { LoadError, Loading } from '../../ui/page';
import { usePublicHistory } from './public-api';
import { WrittenIncidentView } from './public-incidents';
import type { HistoryItem } from './public-types';

export function History({ slug }: { slug: string }) {
  const history = usePublicHistory(slug);
  const items = history.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section aria-labelledby="public-history-title">
      <h2 id="public-history-title">Past incidents</h2>
      {history.isPending ? (
        <Loading what="past incidents" />
      ) : history.isError && items.length === 0 ? (
        <LoadError error={history.error} retry={() => void history.refetch()} />
      ) : items.length === 0 ? (
        <p className="muted">No incident or maintenance in the last 90 days.</p>
      ) : (
        <ul className="public-history">
          {items.map((item) => (
            <li key={`${item.type}-${item.id}-${item.started_at}`}>
              <HistoryEntry item={item} />
            </li>
          ))}
        </ul>
      )}
      {history.hasNextPage && (
        <button type="button" onClick={() => void history.fetchNextPage()} disabled={history.isFetchingNextPage}>
          {history.isFetchingNextPage ? 'Loading…' : 'Older'}
        </button>
      )}
    </section>
  );
}

function HistoryEntry({ item }: { item: HistoryItem }) {
  if (item.type === 'incident') return <WrittenIncidentView incident={item} />;
  return (
    <article aria-label={item.name}>
      <h3 className="public-incident-title">{item.name}</h3>
      <p className="public-incident-meta">
        <span className="maintenance-phase">Maintenance</span>
        <span>
          {formatDateTime(item.starts_at)} – {formatDateTime(item.ends_at)}
        </span>
      </p>
    </article>
  );
}
