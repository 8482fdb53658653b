// The status and impact choosers every incident form shows, in the words the public page uses.
import { SelectField } from '../../../ui/field';
import { IMPACTS, IMPACT_TEXT, INCIDENT_STATUSES, STATUS_TEXT, type Impact, type IncidentStatus } from './incident-types';

export function StatusSelect({ value, onChange, error }: { value: IncidentStatus; onChange(status: IncidentStatus): void; error?: string }) {
  return (
    <SelectField label="Status" value={value} onChange={(e) => onChange(e.target.value as IncidentStatus)} error={error}>
      {INCIDENT_STATUSES.map((s) => (
        <option key={s} value={s}>
          {STATUS_TEXT[s]}
        </option>
      ))}
    </SelectField>
  );
}

export function ImpactSelect({ value, onChange, error }: { value: Impact; onChange(impact: Impact): void; error?: string }) {
  return (
    <SelectField label="Impact" value={value} onChange={(e) => onChange(e.target.value as Impact)} error={error}>
      {IMPACTS.map((i) => (
        <option key={i} value={i}>
          {IMPACT_TEXT[i]}
        </option>
      ))}
    </SelectField>
  );
}
