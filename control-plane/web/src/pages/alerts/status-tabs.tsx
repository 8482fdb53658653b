// The status filter of the alerts page as tabs (arrow keys move between them, as in any tab list).
import type { KeyboardEvent } from 'react';

export interface StatusTab {
  value: 'firing' | 'acknowledged' | 'resolved' | 'all';
  label: string;
  /** For "1 firing alert", "3 firing alerts". */
  noun: string;
  empty: string;
}

export const STATUS_TABS: readonly StatusTab[] = [
  { value: 'firing', label: 'Firing', noun: 'firing alert', empty: 'No alert is firing. Alert rules open alerts when a service fails; create one under Alert rules.' },
  { value: 'acknowledged', label: 'Acknowledged', noun: 'acknowledged alert', empty: 'No alert is acknowledged. Acknowledge a firing alert to tell others you are on it.' },
  { value: 'resolved', label: 'Resolved', noun: 'resolved alert', empty: 'No alert has been resolved yet.' },
  { value: 'all', label: 'All', noun: 'alert', empty: 'No alert has fired yet. Create an alert rule under Alert rules to be alerted when a service fails.' },
];

export function StatusTabs({ current, onChange }: { current: StatusTab; onChange(tab: StatusTab): void }) {
  const move = (event: KeyboardEvent<HTMLButtonElement>) => {
    const index = STATUS_TABS.indexOf(current);
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = STATUS_TABS[(index + step + STATUS_TABS.length) % STATUS_TABS.length]!;
    onChange(next);
    document.getElementById(`alerts-tab-${next.value}`)?.focus();
  };
  return (
    <div role="tablist" aria-label="Alert status" className="alert-tabs">
      {STATUS_TABS.map((tab) => {
        const selected = tab.value === current.value;
        return (
          <button
            key={tab.value}
            type="button"
            role="tab"
            id={`alerts-tab-${tab.value}`}
            aria-selected={selected}
            aria-controls="alerts-panel"
            tabIndex={selected ? 0 : -1}
            onClick={() => onChange(tab)}
            onKeyDown={move}
          >
            {tab.label}
          </button>
        );
      })}
    </div>
  );
}
