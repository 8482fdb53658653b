// The four states of a list read from the API, in one place: loading, failed (with a retry),
// empty (with the page's own words) and the data itself, which the page renders.
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Empty, LoadError, Loading } from './page';

interface QueryStateProps<T> {
  query: UseQueryResult<T[], unknown>;
  /** What loads, as in "Loading escalation policies…". */
  what: string;
  /** What an empty list says, shown in an <Empty> paragraph. */
  empty: ReactNode;
  children(data: T[]): ReactNode;
}

export function QueryState<T>({ query, what, empty, children }: QueryStateProps<T>) {
  if (query.isPending) return <Loading what={what} />;
  if (query.isError) return <LoadError error={query.error} retry={() => void query.refetch()} />;
  if (query.data.length === 0) return <Empty>{empty}</Empty>;
  return <>{children(query.data)}</>;
}
