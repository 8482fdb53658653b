// When a window holds alerts, in the browser's time zone: its timing as entered, and its next
// occurrences as the control plane computed them (daylight-saving changes included).
import { formatDateTime } from '../../ui/format';
import type { MaintenanceWindow, Occurrence } from './maintenance-types';

const day = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** "Sun, 29 Mar 2026, 03:00 – 04:00", the end's date only when it is another day. */
function formatOccurrence(o: Occurrence): string {
  const starts = new Date(o.starts_at);
  const ends = new Date(o.ends_at);
  return `${day.format(starts)} – ${starts.toDateString() === ends.toDateString() ? time.format(ends) : day.format(ends)}`;
}

/** "90 min", "2 h", "1 d 6 h". */
export function formatMinutes(minutes: number): string {
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  if (days === 0 && hours === 0) return `${rest} min`;
  if (rest !== 0) return `${days * 24 + hours} h ${rest} min`;
  return [days && `${days} d`, hours && `${hours} h`].filter(Boolean).join(' ');
}

export function WindowTiming({ window: w }: { window: MaintenanceWindow }) {
  if (w.schedule === null) return <>{`${formatDateTime(w.starts_at)} – ${formatDateTime(w.ends_at)}`}</>;
  return (
    <>
      Recurring: <code>{w.schedule}</code> in {w.timezone}, {formatMinutes(w.duration_minutes ?? 0)} each
    </>
  );
}

export function NextOccurrences({ occurrences, limit = occurrences.length, label }: { occurrences: Occurrence[]; limit?: number; label: string }) {
  if (occurrences.length === 0) return <span className="muted">None: it has ended</span>;
  return (
    <ol className="occurrences" aria-label={label}>
      {occurrences.slice(0, limit).map((o) => (
        <li key={o.starts_at}>
          <time dateTime={o.starts_at}>{formatOccurrence(o)}</time>
        </li>
      ))}
    </ol>
  );
}
