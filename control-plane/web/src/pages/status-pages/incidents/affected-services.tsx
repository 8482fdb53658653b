// Which of a page's services an incident affects, and how badly each: a checkbox per service
// and, once checked, its impact.
import { CheckboxField } from '../../../ui/field';
import { IMPACTS, IMPACT_TEXT, type Affected, type Impact } from './incident-types';

export interface NamedService {
  id: string;
  name: string;
}

interface AffectedServicesProps {
  services: NamedService[];
  affected: Affected[];
  onChange(affected: Affected[]): void;
  /** The impact a newly checked service gets. */
  defaultImpact: Impact;
  error?: string;
}

export function AffectedServices({ services, affected, onChange, defaultImpact, error }: AffectedServicesProps) {
  const impactOf = (id: string) => affected.find((a) => a.service_id === id)?.impact;
  const toggle = (id: string, on: boolean) =>
    onChange(on ? [...affected, { service_id: id, impact: defaultImpact === 'none' ? 'minor' : defaultImpact }] : affected.filter((a) => a.service_id !== id));
  const setImpact = (id: string, impact: Impact) => onChange(affected.map((a) => (a.service_id === id ? { ...a, impact } : a)));
  return (
    <fieldset>
      <legend>Affected services</legend>
      {error && <p className="field-error">{error}</p>}
      {services.length === 0 ? (
        <p className="muted">This page lists no service.</p>
      ) : (
        <ul className="affected-list">
          {services.map((service) => {
            const impact = impactOf(service.id);
            return (
              <li key={service.id} className="affected-choice">
                <CheckboxField label={service.name} checked={impact !== undefined} onChange={(e) => toggle(service.id, e.target.checked)} />
                {impact !== undefined && (
                  <select aria-label={`Impact on ${service.name}`} value={impact} onChange={(e) => setImpact(service.id, e.target.value as Impact)}>
                    {IMPACTS.map((i) => (
                      <option key={i} value={i}>
                        {IMPACT_TEXT[i]}
                      </option>
                    ))}
                  </select>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </fieldset>
  );
}
