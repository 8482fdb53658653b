// Snoozing an alert: a silence of its service for 1, 4, 8 or 24 hours, made from the card;
// and what a silenced alert's card says: until when, with the way to the silence.
import { Link } from 'react-router';
import type { Alert } from '../../api/types';
import { formatDateTime } from '../../ui/format';
import { MenuButton } from '../../ui/menu-button';
import { useSaveSilence, useSilences } from '../silences/silence-api';

const SNOOZE_HOURS = [1, 4, 8, 24];
const HOUR_MS = 3_600_000;

/** For members, on an open alert of a service that no silence covers yet. */
export function SnoozeMenu({ alert, serviceId }: { alert: Alert; serviceId: string }) {
  const snooze = useSaveSilence();
  const items = SNOOZE_HOURS.map((hours) => ({
    label: `${hours} h`,
    onSelect: () =>
      snooze.mutate({
        body: { matchers: { service_ids: [serviceId] }, ends_at: new Date(Date.now() + hours * HOUR_MS).toISOString(), comment: `Snoozed from alert ${alert.title}` },
      }),
  }));
  return (
    <>
      <MenuButton name={`Snooze ${alert.title}`} items={items} disabled={snooze.isPending}>
        Snooze
      </MenuButton>
      {snooze.isError && (
        <p className="form-error" role="alert">
          The alert could not be snoozed: {snooze.error.message}
        </p>
      )}
    </>
  );
}

/** "Silenced until …", leading to the silence on the Silences page. */
export function SilencedNote({ silenceId }: { silenceId: string }) {
  const silences = useSilences();
  const silence = silences.data?.find((s) => s.id === silenceId);
  return (
    <p className="alert-silenced-note">
      <Link to={`/silences#silence-${silenceId}`}>
        {silence ? (
          <>
            Silenced until <time dateTime={silence.ends_at}>{formatDateTime(silence.ends_at)}</time>
          </>
        ) : (
          'See its silence'
        )}
      </Link>
      <span className="muted">
        {silence && <> · “{silence.comment}”</>} · nobody is notified meanwhile
      </span>
    </p>
  );
}
