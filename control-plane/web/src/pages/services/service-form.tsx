// The one form behind "New service" and "Edit service". The options shown follow the chosen
// check type, grouped: its own options (or MULTISTEP steps), assertions and thresholds in
// view, authentication and connection folded until used. The API's 400 details appear at the
// fields they name, after Save or Test alike.
import { useId, useMemo, useState, type FormEvent } from 'react';
import type { Service } from '../../api/types';
import { useResourceList } from '../../api/resources';
import { CheckboxGroup } from '../channels/checkbox-group';
import { CheckboxField, SelectField, TextAreaField, TextField } from '../../ui/field';
import { Disclosure } from '../../ui/disclosure';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { FormActions } from '../../ui/form-actions';
import { ASSERTION_SOURCES } from './assertion-catalogue';
import { AssertionRows } from './assertion-rows';
import { assertionPaths, newStep, stepPaths } from './assertion-values';
import { CHECK_TYPES, endpointHintOf, familyOf, optionsOf, type OptionSection, type OptionSpec } from './check-catalogue';
import { bodyOf, SECRET_MASK, valueAt, type ServiceFormValues } from './form-values';
import { OptionFields, type OptionFieldsProps } from './option-field';
import { useSaveService, useTestService } from './service-api';
import { StepsEditor } from './steps-editor';
import { isFieldError, TestControls, TestOutcome } from './test-run';
import { list } from './text-values';
import type { AgentSummary } from './types';
import './services.css';

interface ServiceFormProps {
  initial: ServiceFormValues;
  /** The service being edited; absent when creating. */
  service?: Service;
  onSaved(service: Service): void;
  onCancel(): void;
}

const TOP_FIELDS = ['name', 'description', 'environment', 'check_type', 'endpoint', 'check_interval_seconds', 'timeout_seconds', 'tags', 'locations', 'depends_on'];

/** Every API path the form shows at a field, so the summary says only the rest. */
function shownPaths(values: ServiceFormValues, specs: OptionSpec[]): string[] {
  const steps = familyOf(values.check_type) === 'MULTISTEP' ? [...stepPaths(values.steps), ...(values.steps.length === 0 ? ['options.steps'] : [])] : [];
  return [...TOP_FIELDS, ...specs.map((o) => `options.${o.key}`), ...assertionPaths('options.assertions', values.assertions), ...steps];
}

export function ServiceForm({ initial, service, onSaved, onCancel }: ServiceFormProps) {
  const [values, setValues] = useState(initial);
  const save = useSaveService();
  const test = useTestService();
  const errors = formErrors(save.error ?? (isFieldError(test.error) ? test.error : null));
  const family = familyOf(values.check_type);
  const specs = optionsOf(values.check_type);
  const set = <K extends keyof ServiceFormValues>(key: K, value: ServiceFormValues[K]) => setValues((v) => ({ ...v, [key]: value }));
  const setOption = (key: string, value: string) => setValues((v) => ({ ...v, options: { ...v.options, [key]: value } }));
  const setCheckType = (checkType: string) =>
    // A MULTISTEP check needs a step: the form starts it with an empty one.
    setValues((v) => ({ ...v, check_type: checkType, steps: familyOf(checkType) === 'MULTISTEP' && v.steps.length === 0 ? [newStep()] : v.steps }));
  const endpointHint = endpointHintOf(values.check_type);
  const body = () => bodyOf(values, service?.options);
  const optionProps = { values, stored: service?.options, setOption, setCleared: (keys: string[]) => set('cleared_secrets', keys), errors };
  const section = (name: OptionSection) => specs.filter((s) => s.section === name);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    test.reset();
    save.mutate({ id: service?.id, body }, { onSuccess: onSaved });
  };
  const runTest = (location: string | undefined) => {
    save.reset();
    // An edited service is tested with its stored secrets behind the masks the form keeps.
    test.mutate(() => ({ ...body(), ...(service ? { service_id: service.id } : {}), ...(location ? { location } : {}) }));
  };

  return (
    <form className="card service-form" onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(shownPaths(values, specs))} />
      <div className="form-grid">
        <TextField label="Name" required value={values.name} onChange={(e) => set('name', e.target.value)} error={errors.field('name')} />
        <TextField label="Environment" value={values.environment} onChange={(e) => set('environment', e.target.value)} error={errors.field('environment')} hint="e.g. production" />
        <SelectField label="Check type" value={values.check_type} onChange={(e) => setCheckType(e.target.value)} error={errors.field('check_type')}>
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
      {section('check').length > 0 && (
        <fieldset>
          <legend>{values.check_type} options</legend>
          <p className="hint">Leave a field empty to use its default.</p>
          <OptionFields specs={section('check')} {...optionProps} />
        </fieldset>
      )}
      {family === 'MULTISTEP' && <StepsEditor steps={values.steps} onChange={(steps) => set('steps', steps)} errors={errors} />}
      {family && (
        <fieldset>
          <legend>Assertions</legend>
          <p className="hint">
            {family === 'MULTISTEP'
              ? 'On the whole run; each step has assertions of its own above.'
              : 'What the answer must satisfy: the check is RED when one does not hold.'}
          </p>
          <AssertionRows
            drafts={values.assertions}
            sources={ASSERTION_SOURCES[family]}
            onChange={(assertions) => set('assertions', assertions)}
            errors={errors}
            path="options.assertions"
            rowName={(n) => `Assertion ${n}`}
            addName="Add assertion"
          />
        </fieldset>
      )}
      <fieldset>
        <legend>Thresholds</legend>
        <OptionFields specs={section('thresholds')} {...optionProps} />
      </fieldset>
      <FoldedOptions title="Authentication" specs={section('authentication')} {...optionProps} />
      <FoldedOptions title="Connection" specs={section('connection')} {...optionProps} />
      <div className="form-footer">
        <TestControls
          locations={[...new Set([...values.locations, ...list(values.other_locations)])]}
          busy={test.isPending}
          onTest={runTest}
        />
        <FormActions onCancel={onCancel} busy={save.isPending} submitLabel={save.isPending ? 'Saving…' : 'Save'} />
      </div>
      <TestOutcome test={test} timeoutSeconds={values.timeout_seconds} />
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

/** Options most checks do without: folded until one is set or shows an error. */
function FoldedOptions({ title, specs, ...props }: { title: string; specs: OptionSpec[] } & Omit<OptionFieldsProps, 'specs'>) {
  if (specs.length === 0) return null;
  const set = specs.filter((s) => props.values.options[s.key]?.trim() || valueAt(props.stored, s.key) === SECRET_MASK);
  return (
    <Disclosure
      title={title}
      defaultOpen={set.length > 0}
      forceOpen={specs.some((s) => props.errors.field(`options.${s.key}`))}
      summary={set.length > 0 ? `Set: ${set.map((s) => s.label).join(', ')}` : 'Optional'}
    >
      <OptionFields specs={specs} {...props} />
    </Disclosure>
  );
}
