// A service's SVG badges for a README or a wiki. A service on a public status page shows them
// to anyone; for any other, a member makes a badge token, shown once in the URLs below (a new
// token replaces the old one at once, and removing it closes the badges again).
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/http';
import type { Service } from '../../api/types';
import { useSession } from '../../session/session';
import { CopyButton } from '../../ui/copy-button';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';

interface BadgeToken {
  token: string;
  badges: { status: string; uptime: string; response_time: string; certificate: string };
}

const KINDS: [keyof BadgeToken['badges'], string][] = [
  ['status', 'Status'],
  ['uptime', 'Uptime (30 days)'],
  ['response_time', 'Response time'],
  ['certificate', 'Certificate'],
];

export function BadgesCard({ service }: { service: Service }) {
  const { canWrite } = useSession();
  const [made, setMade] = useState<BadgeToken | null>(null);
  const create = useMutation({ mutationFn: () => api.post<BadgeToken>(`/services/${service.id}/badge-token`, {}), onSuccess: setMade });
  const remove = useMutation({ mutationFn: () => api.del(`/services/${service.id}/badge-token`), onSuccess: () => setMade(null) });
  // On the dashboard's own origin, which is where the reader's browser reached the badges.
  const base = `${location.origin}/api/v1/badges/${service.id}`;
  const query = made ? `?token=${encodeURIComponent(made.token)}` : '';
  const urls: BadgeToken['badges'] = {
    status: `${base}/status.svg${query}`,
    uptime: `${base}/uptime.svg${query}`,
    response_time: `${base}/response-time.svg${query}`,
    certificate: `${base}/certificate.svg${query}`,
  };
  return (
    <section className="card" aria-labelledby="badges-heading">
      <h2 id="badges-heading">Badges</h2>
      <p className="muted">
        {made
          ? 'These URLs carry the new badge token: copy them now, the token is not shown again.'
          : 'These answer for a service that a public status page lists. For any other, make a badge token.'}
      </p>
      <ul className="badge-urls" aria-label="Badge URLs">
        {KINDS.map(([kind, label]) => (
          <li key={kind}>
            <span>{label}</span> <code className="mono">{urls[kind]}</code> <CopyButton text={`![${service.name} ${label.toLowerCase()}](${urls[kind]})`} label={`Copy ${label.toLowerCase()} badge as Markdown`} />
          </li>
        ))}
      </ul>
      {canWrite && (
        <div className="actions">
          <button type="button" onClick={() => create.mutate()} disabled={create.isPending}>
            {made ? 'Make a new badge token' : 'Make a badge token'}
          </button>
          <button type="button" onClick={() => remove.mutate()} disabled={remove.isPending}>
            Remove the badge token
          </button>
        </div>
      )}
      <FormProblems messages={formErrors(create.error ?? remove.error).summary([])} />
    </section>
  );
}
