// Announced maintenance: in progress first, then upcoming, with the services it covers.
import { formatDateTime } from '../../ui/format';
import type { PublicMaintenance, PublicService } from './public-types';

const PHASE_TEXT: Record<PublicMaintenance['status'], string> = { in_progress: 'In progress', upcoming: 'Upcoming', completed: 'Completed' };

export function Maintenance({ windows, services }: { windows: PublicMaintenance[]; services: PublicService[] }) {
  const names = new Map(services.map((s) => [s.id, s.name]));
  const ordered = [...windows].sort((a, b) => Number(b.status === 'in_progress') - Number(a.status === 'in_progress') || a.starts_at.localeCompare(b.starts_at));
  return (
    <section aria-labelledby="public-maintenance-title">
      <h2 id="public-maintenance-title">Maintenance</h2>
      <ul className="public-maintenance">
        {ordered.map((w) => (
          <li key={`${w.id}-${w.starts_at}`} className={`maintenance-${w.status}`}>
            <h3 className="public-incident-title">{w.name}</h3>
            <p className="public-incident-meta">
              <span className={`maintenance-phase maintenance-phase-${w.status}`}>{PHASE_TEXT[w.status]}</span>
              <span>
                {formatDateTime(w.starts_at)} – {formatDateTime(w.ends_at)}
              </span>
              {w.service_ids.length > 0 && <span>Covers {w.service_ids.map((id) => names.get(id) ?? 'a service').join(', ')}</span>}
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}
