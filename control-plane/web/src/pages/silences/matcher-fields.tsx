// The matchers of a silence or of an alert rule's selector as form fields: services by name
// (silences), tags, environment, locations and check types. Known values of the organization
// are offered; values no service has yet are allowed (a selector covers services made later).
import { useId } from 'react';
import { CHECK_TYPES } from '../../../../../shared/src/check-types.js';
import type { ServicesSummary } from '../../api/types';
import { TextField } from '../../ui/field';
import type { FormErrors } from '../../ui/form-errors';
import { CheckboxGroup } from '../channels/checkbox-group';
import type { MatcherDraft } from './matchers';
import './matcher-fields.css';

interface MatcherFieldsProps {
  legend: string;
  hint: string;
  draft: MatcherDraft;
  onChange(draft: MatcherDraft): void;
  errors: FormErrors;
  /** Where the API reports these matchers' problems: "matchers" or "condition.selector". */
  path: string;
  /** Offered to pick by name; absent: no service picker. */
  services?: { id: string; name: string }[];
  known: ServicesSummary | undefined;
}

const FIELDS = ['service_ids', 'tags', 'environment', 'locations', 'check_types'] as const;

const knownText = (values: string[] | undefined) => (values?.length ? ` Known: ${values.slice(0, 12).join(', ')}${values.length > 12 ? ', …' : ''}.` : '');

export function MatcherFields({ legend, hint, draft, onChange, errors, path, services, known }: MatcherFieldsProps) {
  const id = useId();
  const set = <K extends keyof MatcherDraft>(key: K, value: MatcherDraft[K]) => onChange({ ...draft, [key]: value });
  const fieldError = (field: (typeof FIELDS)[number]) => errors.field(`${path}.${field}`);
  // "must name at least one matcher" belongs to the whole set; a field's own problem stays at it.
  const whole = errors.field(path);
  const wholeError = whole && !FIELDS.some((f) => fieldError(f) === whole) ? whole : undefined;

  return (
    <fieldset className="checkbox-group matcher-fields" aria-describedby={`${id}-hint${wholeError ? ` ${id}-error` : ''}`}>
      <legend>{legend}</legend>
      <p className="hint" id={`${id}-hint`}>
        {hint}
      </p>
      {wholeError && (
        <p className="field-error" id={`${id}-error`}>
          {wholeError}
        </p>
      )}
      {services && (
        <CheckboxGroup
          legend="Services"
          options={services.map((s) => ({ value: s.id, label: s.name }))}
          selected={draft.serviceIds}
          onChange={(ids) => set('serviceIds', ids)}
          error={fieldError('service_ids')}
          none="No service yet."
        />
      )}
      <div className="form-grid">
        <TextField label="Tags" value={draft.tags} onChange={(e) => set('tags', e.target.value)} error={fieldError('tags')} hint={`Comma-separated; a service must carry all of them.${knownText(known?.tags)}`} />
        <TextField label="Environment" value={draft.environment} onChange={(e) => set('environment', e.target.value)} error={fieldError('environment')} list={`${id}-environments`} hint="Exactly this environment." />
        <datalist id={`${id}-environments`}>
          {(known?.environments ?? []).map((env) => (
            <option key={env} value={env} />
          ))}
        </datalist>
        <TextField
          label="Locations"
          value={draft.locations}
          onChange={(e) => set('locations', e.target.value)}
          error={fieldError('locations')}
          hint={`Comma-separated; a service checked from any of them.${knownText(known?.locations)}`}
        />
      </div>
      <CheckboxGroup
        legend="Check types"
        options={CHECK_TYPES.map((t) => ({ value: t, label: t }))}
        selected={draft.checkTypes}
        onChange={(types) => set('checkTypes', types)}
        error={fieldError('check_types')}
        hint="Any of them; none chosen: every check type."
        none=""
      />
    </fieldset>
  );
}
