// A status is always written out (GREEN, YELLOW, RED), with colour as a second cue.
import type { Status } from '../api/types';
import { formatDateTime } from './format';

export function StatusBadge({ status, label }: { status: Status | null | undefined; label?: string }) {
  const text = status ?? 'PENDING';
  return (
    <span className={`status status-${text.toLowerCase()}`} aria-label={label ? `${label}: ${text}` : undefined}>
      <span className="status-dot" aria-hidden="true" />
      {text}
    </span>
  );
}

/** One small dot per location, named for assistive technology and on hover. */
export function LocationDot({ location, status }: { location: string; status: Status | null }) {
  const text = `${location}: ${status ?? 'PENDING'}`;
  return <span className={`location-dot status-${(status ?? 'pending').toLowerCase()}`} role="img" aria-label={text} title={text} />;
}

/** A paused service, said in words; the status it keeps (shown on hover) returns with its checks. */
export function PausedBadge({ status }: { status: Status | null | undefined }) {
  return (
    <span className="status status-paused" title={`Paused: no checks run. Last status ${status ?? 'PENDING'}.`}>
      <span className="status-dot" aria-hidden="true" />
      Paused
    </span>
  );
}

/** A service without results for three check intervals: its status is greyed, and this says since when. */
export function StaleNote({ since }: { since: string | null }) {
  return (
    <span className="stale-note" title="No result for three check intervals (at least 90 s): the status shown is the last one known.">
      {since ? `No data since ${formatDateTime(since)}` : 'No data yet'}
    </span>
  );
}

/** A service whose status keeps changing: its alerts send one "flapping" notice, not one per change. */
export function FlappingBadge() {
  return (
    <span className="status status-flapping" title="Its status keeps changing: its alerts send one notice instead of one per change until it settles.">
      <span className="status-dot" aria-hidden="true" />
      Flapping
    </span>
  );
}
