// A status is always written out (GREEN, YELLOW, RED), with colour as a second cue.
import type { Status } from '../api/types';

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
