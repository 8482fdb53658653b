// Every service of the organization at a glance: counts by status, filters kept in the URL,
// and a virtualized list that the live feed patches in place (cache-updates.ts). Members
// select rows for bulk actions, which act on the selected rows the filters show.
import { useQuery } from '@tanstack/react-query';
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import type { Overview, ServicesSummary } from '../../api/types';
import { useOrg, useSession } from '../../session/session';
import { SelectField, TextField } from '../../ui/field';
import { Empty, LoadError, Loading, Page } from '../../ui/page';
import { applyFilters, countByStatus, filtersFrom, paramsOf, SORTS, type FilterKey, type Filters, type ShownStatus } from './overview-filters';
import { BulkActions } from './bulk-actions';
import { OverviewTable, type RowSelection } from './overview-table';
import './services.css';

const STATUSES: ShownStatus[] = ['RED', 'YELLOW', 'GREEN', 'PENDING', 'PAUSED'];

export default function ServicesOverviewPage() {
  const org = useOrg();
  const { canWrite } = useSession();
  // One request for the whole organization (no filters in it): filtering is local and the
  // live feed patches this one cached answer.
  const overview = useQuery({
    queryKey: [...queryKeys.servicesOverview(org), 'all'],
    queryFn: () => api.get<Overview>('/services/overview'),
  });
  const summary = useQuery({
    queryKey: queryKeys.servicesSummary(org),
    queryFn: () => api.get<ServicesSummary>('/services/summary'),
  });
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => filtersFrom(params), [params]);
  const deferredFilters = useDeferredValue(filters);
  const rows = overview.data?.services;
  const shown = useMemo(() => (rows ? applyFilters(rows, deferredFilters) : []), [rows, deferredFilters]);
  const counts = useMemo(() => countByStatus(rows ?? []), [rows]);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const selectedShown = useMemo(() => shown.filter((row) => selected.has(row.id)).map((row) => row.id), [shown, selected]);
  const names = useMemo(() => new Map((rows ?? []).map((row) => [row.id, row.name])), [rows]);
  const toggle = useCallback(
    (id: string) =>
      setSelected((now) => {
        const next = new Set(now);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    [],
  );
  const selection: RowSelection = {
    selected,
    toggle,
    toggleAll: () => setSelected(selectedShown.length === shown.length ? new Set() : new Set(shown.map((row) => row.id))),
  };

  // Built on the URL as it is when applied: a delayed search must not undo a filter set meanwhile.
  const latestParams = useRef(params);
  latestParams.current = params;
  const setFilter = (key: FilterKey, value: string) => setParams(paramsOf({ ...filtersFrom(latestParams.current), [key]: value }), { replace: true });

  return (
    <Page
      title="Services"
      actions={
        canWrite && (
          <Link className="button primary" to="/services/new">
            New service
          </Link>
        )
      }
    >
      {overview.isPending && <Loading what="services" />}
      {overview.isError && <LoadError error={overview.error} retry={() => void overview.refetch()} />}
      {rows && (
        <>
          <StatusCounts counts={counts} />
          <FilterBar filters={filters} summary={summary.data} setFilter={setFilter} clear={() => setParams(paramsOf({ sort: filters.sort }), { replace: true })} />
          <p className="muted services-count" role="status">
            {shown.length === rows.length ? `${rows.length} services` : `${shown.length} of ${rows.length} services`}
          </p>
          {canWrite && <BulkActions ids={selectedShown} nameOf={(id) => names.get(id)} clear={() => setSelected(new Set())} />}
          {rows.length === 0 ? (
            <Empty>No services yet.{canWrite && ' Create one with "New service".'}</Empty>
          ) : shown.length === 0 ? (
            <Empty>No service matches these filters.</Empty>
          ) : (
            <OverviewTable rows={shown} selection={canWrite ? selection : undefined} />
          )}
        </>
      )}
    </Page>
  );
}

function StatusCounts({ counts }: { counts: Record<ShownStatus, number> }) {
  return (
    <ul className="status-counts" aria-label="Service counts">
      {STATUSES.map((status) => (
        <li key={status} className={`status-count status-${status.toLowerCase()}`}>
          <span className="status-dot" aria-hidden="true" />
          {status} {counts[status]}
        </li>
      ))}
    </ul>
  );
}

interface FilterBarProps {
  filters: Filters;
  summary: ServicesSummary | undefined;
  setFilter(key: FilterKey, value: string): void;
  clear(): void;
}

function FilterBar({ filters, summary, setFilter, clear }: FilterBarProps) {
  const [text, setText] = useState(filters.q ?? '');
  const sent = useRef(filters.q ?? '');
  // Typing reaches the URL a moment later, so the list is not rebuilt on every key.
  useEffect(() => {
    if (text === sent.current) return;
    const timer = setTimeout(() => {
      sent.current = text;
      setFilter('q', text);
    }, 150);
    return () => clearTimeout(timer);
  }, [text]);
  // A change of the URL from elsewhere (Clear filters, back button) shows in the box.
  useEffect(() => {
    const q = filters.q ?? '';
    if (q === sent.current) return;
    sent.current = q;
    setText(q);
  }, [filters.q]);

  const choice = (key: FilterKey, label: string, values: readonly string[] | undefined) => (
    <SelectField label={label} value={filters[key] ?? ''} onChange={(e) => setFilter(key, e.target.value)}>
      <option value="">All</option>
      {/* A value from the URL that the organization no longer has still shows as chosen. */}
      {[...new Set([...(values ?? []), ...(filters[key] ? [filters[key]] : [])])].map((v) => (
        <option key={v} value={v}>
          {v}
        </option>
      ))}
    </SelectField>
  );

  const active = Object.entries(filters).some(([key, value]) => key !== 'sort' && value);
  return (
    <div role="search" className="services-filters" aria-label="Filter services">
      <TextField label="Search" type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="Name, endpoint or tag" />
      {choice('status', 'Status', STATUSES)}
      {choice('tag', 'Tag', summary?.tags)}
      {choice('environment', 'Environment', summary?.environments)}
      {choice('location', 'Location', summary?.locations)}
      {choice('check_type', 'Check type', summary?.check_types)}
      <SelectField label="Sort by" value={filters.sort ?? 'status'} onChange={(e) => setFilter('sort', e.target.value === 'status' ? '' : e.target.value)}>
        {Object.entries(SORTS).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </SelectField>
      {active && (
        <button type="button" className="clear-filters" onClick={clear}>
          Clear filters
        </button>
      )}
    </div>
  );
}
