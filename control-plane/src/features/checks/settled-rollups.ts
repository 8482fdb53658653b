// Reads of the rollup tables that first fold what the rollup backlog holds (rollup-folder.ts),
// so an answer counts every result acknowledged before the request.
import type { ServiceOverviewRepository } from '../services/service-overview.repository.js';
import type { CheckHistoryRepository } from './check-history.repository.js';

type Settle = () => Promise<void>;

function settledBefore<A extends unknown[], R>(settle: Settle, read: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    await settle();
    return read(...args);
  };
}

export function settledHistory(history: CheckHistoryRepository, settle: Settle): CheckHistoryRepository {
  return {
    log: history.log,
    uptime: settledBefore(settle, history.uptime),
    summary: settledBefore(settle, history.summary),
    buckets: settledBefore(settle, history.buckets),
    summaries: settledBefore(settle, history.summaries),
    daily: settledBefore(settle, history.daily),
  };
}

export function settledOverview(overview: ServiceOverviewRepository, settle: Settle): ServiceOverviewRepository {
  return { ...overview, hourlyMeans: settledBefore(settle, overview.hourlyMeans) };
}
