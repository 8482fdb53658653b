// The one form behind "New service" and "Edit service". The options shown follow the chosen
// check type; the API's 400 details appear at the fields they name.
import { useId, useMemo, useState, type FormEvent } from 'react';
import type { Service } from '../../api/types';
import { useResourceList } from '../../api/resources';
import { CheckboxGroup } from '../channels/checkbox-group';
import { CheckboxField, SelectField, TextAreaField, TextField } from '../../ui/field';
import { formErrors, type FormErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { CHECK_TYPES, endpointHintOf, optionsOf, type OptionSpec } from './check-catalogue';
import { bodyOf, SECRET_MASK, type ServiceFormValues } from './form-values';
import { useSaveService } from './service-api';
import type { AgentSummary } from './types';
import './services.css';
import { FormActions } from '../../ui/form-actions';

interface ServiceFormProps {
  initial: ServiceFormValues;
  /** The service being edited; absent when creating. */
  service?: Service;
  onSaved(service: Service): void;
  onCancel(): void;
}

const TOP_FIELDS = ['name', 'description', 'environment', 'check_type', 'endpoint', 'check_interval_seconds', 'timeout_seconds', 'tags', 'locations', 'depends_on'];

export function ServiceForm({ initial, service, onSaved, onCancel }: ServiceFormProps) {
  const [values, setValues] = useState(initial);
  const save = useSaveService();
  const errors = formErrors(save.error);
  const options = optionsOf(values.check_type);
  const set = <K extends keyof ServiceFormValues>(key: K, value: ServiceFormValues[K]) => setValues((v) => ({ ...v, [key]: value }));
  const setOption = (key: string, value: string) => setValues((v) => ({ ...v, options: { ...v.options, [key]: value } }));
  const endpointHint = endpointHintOf(values.check_type);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ id: service?.id, body: () => bodyOf(values, service?.options) }, { onSuccess: onSaved });
  };

  return (
    <form className="card service-form" onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary([...TOP_FIELDS, ...options.map((o) => `options.${o.key}`)])} />
      <div className="form-grid">
        <TextField label="Name" required value={values.name} onChange={(e) => set('name', e.target.value)} error={errors.field('name')} />
        <TextField label="Environment" value={values.environment} onChange={(e) => set('environment', e.target.value)} error={errors.field('environment')} hint="e.g. production" />
        <SelectField label="Check type" value={values.check_type} onChange={(e) => set('check_type', e.target.value)} error={errors.field('check_type')}>
          {CHECK_TYPES.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Endpoint"
          required
          value={values.endpoint}
          onChange={(e) => set('endpoint', e.target.value)}
          placeholder={endpointHint?.example}
          hint={endpointHint && `${endpointHint.hint}, e.g. ${endpointHint.example}`}
          error={errors.field('endpoint')}
        />
        <TextField
          label="Interval (seconds)"
          type="number"
          inputMode="numeric"
          value={values.check_interval_seconds}
          onChange={(e) => set('check_interval_seconds', e.target.value)}
          hint="How often it is checked: 5 to 86400."
          error={errors.field('check_interval_seconds')}
        />
        <TextField
          label="Timeout (seconds)"
          type="number"
          inputMode="numeric"
          value={values.timeout_seconds}
          onChange={(e) => set('timeout_seconds', e.target.value)}
          hint="1 to 120."
          error={errors.field('timeout_seconds')}
        />
        <TextField label="Tags" value={values.tags} onChange={(e) => set('tags', e.target.value)} hint="Comma separated." error={errors.field('tags')} />
      </div>
      <TextAreaField label="Description" rows={2} value={values.description} onChange={(e) => set('description', e.target.value)} error={errors.field('description')} />
      <LocationsFieldset values={values} set={set} error={errors.field('locations')} />
      <DependsOnFieldset serviceId={service?.id} selected={values.depends_on} onChange={(ids) => set('depends_on', ids)} error={errors.field('depends_on')} />
      {options.length > 0 && (
        <fieldset>
          <legend>{values.check_type} options</legend>
          <p className="hint">Leave a field empty to use its default.</p>
          <div className="form-grid">
            {options.map((spec) => (
              <OptionField key={spec.key} spec={spec} values={values} stored={service?.options} setOption={setOption} set={set} errors={errors} />
            ))}
          </div>
        </fieldset>
      )}
      <FormActions onCancel={onCancel} busy={save.isPending} submitLabel={save.isPending ? 'Saving…' : 'Save'} />
    </form>
  );
}

function LocationsFieldset({ values, set, error }: { values: ServiceFormValues; set: <K extends keyof ServiceFormValues>(key: K, value: ServiceFormValues[K]) => void; error?: string }) {
  const errorId = useId();
  const agents = useResourceList<AgentSummary>('/agents');
  // The locations the form started with keep their checkbox when unticked.
  const [startLocations] = useState(values.locations);
  const known = useMemo(
    () => [...new Set(['local', ...(agents.data ?? []).map((a) => a.location), ...startLocations])].sort((a, b) => a.localeCompare(b)),
    [agents.data, startLocations],
  );
  const toggle = (location: string, checked: boolean) =>
    set('locations', checked ? [...values.locations, location] : values.locations.filter((l) => l !== location));
  return (
    <fieldset aria-describedby={error ? errorId : undefined}>
      <legend>Locations</legend>
      <p className="hint">Where the service is checked from. "local" is the agent built into the control plane.</p>
      <div className="location-choices">
        {known.map((location) => (
          <CheckboxField key={location} label={location} checked={values.locations.includes(location)} onChange={(e) => toggle(location, e.target.checked)} />
        ))}
      </div>
      <TextField label="Other locations" value={values.other_locations} onChange={(e) => set('other_locations', e.target.value)} hint="Comma separated, for locations whose agents are not set up yet." />
      {error && (
        <p className="field-error" id={errorId}>
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** The services of the organization this one may depend on: every other one. */
function DependsOnFieldset({ serviceId, selected, onChange, error }: { serviceId?: string; selected: string[]; onChange(ids: string[]): void; error?: string }) {
  const services = useResourceList<Service>('/services', { sort: 'name', limit: 1000 });
  const options = (services.data ?? []).filter((s) => s.id !== serviceId).map((s) => ({ value: s.id, label: s.name }));
  return (
    <CheckboxGroup
      legend="Depends on"
      options={options}
      selected={selected}
      onChange={onChange}
      error={error}
      hint="While one of these is down (RED), this service's failures are shown but open no alert."
      none="No other service yet."
    />
  );
}

interface OptionFieldProps {
  spec: OptionSpec;
  values: ServiceFormValues;
  stored?: Record<string, unknown>;
  setOption(key: string, value: string): void;
  set: <K extends keyof ServiceFormValues>(key: K, value: ServiceFormValues[K]) => void;
  errors: FormErrors;
}

function OptionField({ spec, values, stored, setOption, set, errors }: OptionFieldProps) {
  const value = values.options[spec.key] ?? '';
  const error = errors.field(`options.${spec.key}`);
  const common = { label: spec.label, value, error, hint: spec.hint, onChange: (e: { target: { value: string } }) => setOption(spec.key, e.target.value) };
  switch (spec.kind) {
    case 'select':
      return (
        <SelectField {...common}>
          <option value="">Default</option>
          {spec.choices?.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </SelectField>
      );
    case 'boolean':
      return (
        <SelectField {...common}>
          <option value="">Default ({spec.defaultText})</option>
          <option value="true">Yes</option>
          <option value="false">No</option>
        </SelectField>
      );
    case 'textarea':
    case 'headers':
      return <TextAreaField {...common} rows={3} />;
    case 'number':
      return <TextField {...common} type="number" inputMode="numeric" />;
    case 'secret': {
      const isStored = stored?.[spec.key] === SECRET_MASK;
      const cleared = values.cleared_secrets.includes(spec.key);
      return (
        <div>
          {spec.key === 'private_key' ? (
            <TextAreaField {...common} rows={3} autoComplete="off" hint={isStored ? 'A key is stored: leave empty to keep it.' : spec.hint} />
          ) : (
            <TextField {...common} type="password" autoComplete="new-password" hint={isStored ? 'A password is stored: leave empty to keep it.' : spec.hint} />
          )}
          {isStored && (
            <CheckboxField
              label={`Remove the stored ${spec.label.toLowerCase()}`}
              checked={cleared}
              onChange={(e) => set('cleared_secrets', e.target.checked ? [...values.cleared_secrets, spec.key] : values.cleared_secrets.filter((k) => k !== spec.key))}
            />
          )}
        </div>
      );
    }
    default:
      return <TextField {...common} />;
  }
}
