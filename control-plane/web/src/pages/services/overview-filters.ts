// The overview's filters live in the URL query string (a reload or a shared link keeps them)
// and are applied in the browser: the whole organization is loaded once and kept live, so a
// filter answers as the user types, without a request.
import type { OverviewRow, Status } from '../../api/types';

export const FILTER_KEYS = ['status', 'tag', 'environment', 'location', 'check_type', 'q', 'sort'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string>>;

export const SORTS = { status: 'Status', name: 'Name', created_at: 'Created' } as const;
export type Sort = keyof typeof SORTS;

export function filtersFrom(params: URLSearchParams): Filters {
  const filters: Filters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value) filters[key] = value;
  }
  return filters;
}

export function paramsOf(filters: Filters): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key];
    if (value) params.set(key, value);
  }
  return params;
}

/** What a row shows as its status: a paused service is PAUSED whatever status it keeps. */
export type ShownStatus = Status | 'PENDING' | 'PAUSED';
export const shownStatus = (row: OverviewRow): ShownStatus => (row.paused ? 'PAUSED' : (row.status ?? 'PENDING'));

const RANK: Record<ShownStatus, number> = { RED: 0, YELLOW: 1, GREEN: 2, PENDING: 3, PAUSED: 4 };
const byName = (a: OverviewRow, b: OverviewRow) => a.name.localeCompare(b.name);

/** The rows matching every filter, in the chosen order (`created_at` keeps the API's order). */
export function applyFilters(rows: readonly OverviewRow[], filters: Filters): OverviewRow[] {
  const q = filters.q?.trim().toLowerCase();
  const matched = rows.filter(
    (row) =>
      (!filters.status || shownStatus(row) === filters.status) &&
      (!filters.tag || row.tags.includes(filters.tag)) &&
      (!filters.environment || row.environment === filters.environment) &&
      (!filters.location || row.locations.includes(filters.location)) &&
      (!filters.check_type || row.check_type === filters.check_type) &&
      (!q || matchesText(row, q)),
  );
  const sort = (filters.sort ?? 'status') as Sort;
  if (sort === 'name') return matched.sort(byName);
  if (sort === 'status') return matched.sort((a, b) => RANK[shownStatus(a)] - RANK[shownStatus(b)] || byName(a, b));
  return matched;
}

function matchesText(row: OverviewRow, q: string): boolean {
  return row.name.toLowerCase().includes(q) || row.endpoint.toLowerCase().includes(q) || row.tags.some((t) => t.toLowerCase().includes(q));
}

export function countByStatus(rows: readonly OverviewRow[]): Record<ShownStatus, number> {
  const counts = { GREEN: 0, YELLOW: 0, RED: 0, PENDING: 0, PAUSED: 0 };
  for (const row of rows) counts[shownStatus(row)] += 1;
  return counts;
}
