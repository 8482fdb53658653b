// The services list: only the rows in view are in the DOM (thousands of services scroll like
// ten), on a div grid that keeps table semantics (role table/row/cell, aria-rowcount and
// aria-rowindex) for assistive technology.
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { memo, useLayoutEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { OverviewRow } from '../../api/types';
import { formatMs } from '../../ui/format';
import { LocationDot, StatusBadge } from '../../ui/status';
import { Sparkline } from './sparkline';

const ROW_HEIGHT = 44;
const COLUMNS = ['Name', 'Check type', 'Endpoint', 'Status', 'Response time', 'Trend (24 h)', 'Locations'];

export function OverviewTable({ rows }: { rows: OverviewRow[] }) {
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
          <div role="row" className="services-row" aria-rowindex={1}>
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
            />
          ))}
        </div>
      </div>
    </div>
  );
}

const ServiceRow = memo(function ServiceRow({ row, index, top }: { row: OverviewRow; index: number; top: number }) {
  const byLocation = new Map(row.location_statuses.map((l) => [l.location, l.status]));
  return (
    <div role="row" className="services-row" aria-rowindex={index + 2} style={{ transform: `translateY(${top}px)` }}>
      <div role="cell" className="cell-name">
        <Link to={`/services/${row.id}`}>{row.name}</Link>
      </div>
      <div role="cell">{row.check_type}</div>
      <div role="cell" className="cell-endpoint mono" title={row.endpoint}>
        {row.endpoint}
      </div>
      <div role="cell">
        <StatusBadge status={row.status} />
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
