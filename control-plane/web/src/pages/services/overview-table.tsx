// The services list: only the rows in view are in the DOM (thousands of services scroll like
// ten), on a div grid that keeps table semantics (role table/row/cell, aria-rowcount and
// aria-rowindex) for assistive technology. With a selection, each row starts with a named
// checkbox and the header with one for every row shown (the bulk actions act on them).
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { OverviewRow } from '../../api/types';
import { formatMs } from '../../ui/format';
import { FlappingBadge, LocationDot, PausedBadge, StaleNote, StatusBadge } from '../../ui/status';
import { Sparkline } from './sparkline';

const ROW_HEIGHT = 44;
const COLUMNS = ['Name', 'Check type', 'Endpoint', 'Status', 'Response time', 'Trend (24 h)', 'Locations'];

/** The rows chosen for a bulk action, by id. */
export interface RowSelection {
  selected: ReadonlySet<string>;
  toggle(id: string): void;
  /** Selects every row shown, or none when all of them are selected already. */
  toggleAll(): void;
}

export function OverviewTable({ rows, selection }: { rows: OverviewRow[]; selection?: RowSelection }) {
  const body = useRef<HTMLDivElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);
  // The window scrolls; the virtualizer needs where the rows start on the page, which moves
  // when what is above them (filters, counts) changes height.
  useLayoutEffect(() => {
    const top = body.current ? Math.round(body.current.getBoundingClientRect().top + window.scrollY) : 0;
    if (top !== scrollMargin) setScrollMargin(top);
  });
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    scrollMargin,
    getItemKey: (index) => rows[index]!.id,
  });
  const items = virtualizer.getVirtualItems();

  return (
    <div className="services-table-scroll">
      <div className="services-table" role="table" aria-label="Services" aria-rowcount={rows.length + 1}>
        <div role="rowgroup" className="services-head">
          <div role="row" className={rowClass(selection)} aria-rowindex={1}>
            {selection && (
              <div role="columnheader" className="cell-select">
                <SelectAll rows={rows} selection={selection} />
              </div>
            )}
            {COLUMNS.map((name) => (
              <div role="columnheader" key={name}>
                {name}
              </div>
            ))}
          </div>
        </div>
        <div role="rowgroup" ref={body} className="services-body" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => (
            <ServiceRow
              key={item.key}
              row={rows[item.index]!}
              index={item.index}
              top={item.start - virtualizer.options.scrollMargin}
              selected={selection ? selection.selected.has(rows[item.index]!.id) : undefined}
              toggle={selection?.toggle}
            />
          ))}
        </div>
      </div>
    </div>
  );
}

const rowClass = (selection: RowSelection | undefined) => (selection ? 'services-row selectable' : 'services-row');

/** Checked when every row shown is selected, mixed when some are. */
function SelectAll({ rows, selection }: { rows: OverviewRow[]; selection: RowSelection }) {
  const box = useRef<HTMLInputElement>(null);
  const count = rows.filter((row) => selection.selected.has(row.id)).length;
  useEffect(() => {
    if (box.current) box.current.indeterminate = count > 0 && count < rows.length;
  }, [count, rows.length]);
  return <input ref={box} type="checkbox" aria-label="Select all services shown" checked={count > 0 && count === rows.length} onChange={selection.toggleAll} />;
}

interface ServiceRowProps {
  row: OverviewRow;
  index: number;
  top: number;
  /** Undefined: rows cannot be selected (a viewer). */
  selected?: boolean;
  toggle?(id: string): void;
}

const ServiceRow = memo(function ServiceRow({ row, index, top, selected, toggle }: ServiceRowProps) {
  const byLocation = new Map(row.location_statuses.map((l) => [l.location, l.status]));
  return (
    <div
      role="row"
      className={`services-row${toggle ? ' selectable' : ''}${row.paused ? ' paused' : ''}${row.stale ? ' stale' : ''}`}
      aria-rowindex={index + 2}
      style={{ transform: `translateY(${top}px)` }}
    >
      {toggle && (
        <div role="cell" className="cell-select">
          <input type="checkbox" aria-label={`Select ${row.name}`} checked={selected} onChange={() => toggle(row.id)} />
        </div>
      )}
      <div role="cell" className="cell-name">
        <Link to={`/services/${row.id}`}>{row.name}</Link>
      </div>
      <div role="cell">{row.check_type}</div>
      <div role="cell" className="cell-endpoint mono" title={row.endpoint}>
        {row.endpoint}
      </div>
      <div role="cell" className="cell-status">
        {row.paused ? <PausedBadge status={row.status} /> : <StatusBadge status={row.status} />}
        {row.flapping === true && <FlappingBadge />}
        {row.stale && <StaleNote since={row.last_result_at} />}
      </div>
      <div role="cell">{formatMs(row.last_response_time_ms)}</div>
      <div role="cell">
        <Sparkline values={row.trend} />
      </div>
      <div role="cell" className="cell-locations">
        {row.locations.map((location) => (
          <LocationDot key={location} location={location} status={byLocation.get(location) ?? null} />
        ))}
      </div>
    </div>
  );
});
