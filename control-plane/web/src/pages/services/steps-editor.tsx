// A MULTISTEP check's requests, run in order: each with its own assertions, and values it
// extracts for later steps ({{name}}), which may also use organization secrets ({{secrets.NAME}}).
import { Link } from 'react-router';
import { SelectField, TextAreaField, TextField } from '../../ui/field';
import type { FormErrors } from '../../ui/form-errors';
import { STEP_SOURCES } from './assertion-catalogue';
import { AssertionRows } from './assertion-rows';
import { EXTRACTION_SOURCES, newExtraction, newStep, removeRow, updateRow, type ExtractionDraft, type StepDraft } from './assertion-values';
import { HTTP_METHODS } from './check-catalogue';
const MAX_STEPS = 20;

interface StepsEditorProps {
  steps: StepDraft[];
  onChange(steps: StepDraft[]): void;
  errors: FormErrors;
}

export function StepsEditor({ steps, onChange, errors }: StepsEditorProps) {
  const move = (from: number, to: number) => {
    const next = [...steps];
    next.splice(to, 0, ...next.splice(from, 1));
    onChange(next);
  };
  return (
    <fieldset>
      <legend>Steps</legend>
      <p className="hint">
        Each step's URL is absolute or relative to the endpoint. In a URL, headers or body, <code>{'{{name}}'}</code> is a value an earlier step extracted and{' '}
        <code>{'{{secrets.NAME}}'}</code> one of the organization's <Link to="/secrets">secrets</Link>.
      </p>
      {errors.field('options.steps') && steps.length === 0 && <p className="field-error">{errors.field('options.steps')}</p>}
      {steps.map((step, i) => (
        <StepFields
          key={step.id}
          step={step}
          n={i + 1}
          count={steps.length}
          errors={errors}
          onChange={(change) => onChange(updateRow(steps, step.id, change))}
          onMove={(by) => move(i, i + by)}
          onRemove={() => onChange(removeRow(steps, step.id))}
        />
      ))}
      <button type="button" disabled={steps.length >= MAX_STEPS} onClick={() => onChange([...steps, newStep()])}>
        Add step
      </button>
    </fieldset>
  );
}

interface StepFieldsProps {
  step: StepDraft;
  n: number;
  count: number;
  errors: FormErrors;
  onChange(change: Partial<StepDraft>): void;
  onMove(by: -1 | 1): void;
  onRemove(): void;
}

function StepFields({ step, n, count, errors, onChange, onMove, onRemove }: StepFieldsProps) {
  const path = `options.steps.${n - 1}`;
  const name = `Step ${n}`;
  return (
    <fieldset className="step" aria-label={name}>
      <legend>
        {name}
        {step.name && `: ${step.name}`}
      </legend>
      <div className="step-request">
        <TextField label="Step name" value={step.name} error={errors.field(`${path}.name`)} onChange={(e) => onChange({ name: e.target.value })} />
        <SelectField label="Method" value={step.method} error={errors.field(`${path}.method`)} onChange={(e) => onChange({ method: e.target.value })}>
          <option value="">Default (GET)</option>
          {HTTP_METHODS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </SelectField>
        <TextField label="URL" value={step.url} placeholder="/login" error={errors.field(`${path}.url`)} onChange={(e) => onChange({ url: e.target.value })} />
      </div>
      <div className="form-grid">
        <TextAreaField label="Headers" rows={2} value={step.headers} hint='One "Name: value" per line.' error={errors.field(`${path}.headers`)} onChange={(e) => onChange({ headers: e.target.value })} />
        <TextAreaField label="Body" rows={2} value={step.body} error={errors.field(`${path}.body`)} onChange={(e) => onChange({ body: e.target.value })} />
      </div>
      <h4>Assertions</h4>
      <AssertionRows
        drafts={step.assertions}
        sources={STEP_SOURCES}
        onChange={(assertions) => onChange({ assertions })}
        errors={errors}
        path={`${path}.assertions`}
        rowName={(a) => `${name} assertion ${a}`}
        addName={`Add assertion to step ${n}`}
      />
      <h4>Extract</h4>
      <ExtractionRows drafts={step.extract} n={n} errors={errors} onChange={(extract) => onChange({ extract })} />
      <div className="actions">
        <button type="button" aria-label={`Move step ${n} up`} disabled={n === 1} onClick={() => onMove(-1)}>
          Move up
        </button>
        <button type="button" aria-label={`Move step ${n} down`} disabled={n === count} onClick={() => onMove(1)}>
          Move down
        </button>
        <button type="button" className="danger" aria-label={`Remove step ${n}`} onClick={onRemove}>
          Remove step
        </button>
      </div>
    </fieldset>
  );
}

const EXTRACTION_LABELS: Record<ExtractionDraft['source'], string> = { json: 'JSON body', header: 'Header', body: 'Body (a pattern)', status: 'Status' };
const PROPERTY_LABELS: Record<ExtractionDraft['source'], string | undefined> = { json: 'JSONPath', header: 'Header name', body: 'Pattern', status: undefined };

interface ExtractionRowsProps {
  drafts: ExtractionDraft[];
  /** The step's number, from 1. */
  n: number;
  errors: FormErrors;
  onChange(drafts: ExtractionDraft[]): void;
}

function ExtractionRows({ drafts, n, errors, onChange }: ExtractionRowsProps) {
  return (
    <div className="assertion-rows">
      {drafts.map((draft, i) => (
        <ExtractionRow
          key={draft.id}
          draft={draft}
          name={`Step ${n} extraction ${i + 1}`}
          errorAt={(field) => errors.field(`options.steps.${n - 1}.extract.${i}.${field}`)}
          onChange={(change) => onChange(updateRow(drafts, draft.id, change))}
          onRemove={() => onChange(removeRow(drafts, draft.id))}
        />
      ))}
      <button type="button" aria-label={`Add extraction to step ${n}`} onClick={() => onChange([...drafts, newExtraction()])}>
        Add extraction
      </button>
    </div>
  );
}

interface ExtractionRowProps {
  draft: ExtractionDraft;
  name: string;
  errorAt(field: string): string | undefined;
  onChange(change: Partial<ExtractionDraft>): void;
  onRemove(): void;
}

function ExtractionRow({ draft, name, errorAt, onChange, onRemove }: ExtractionRowProps) {
  const property = PROPERTY_LABELS[draft.source];
  return (
    <div className="assertion-row" role="group" aria-label={name}>
      <TextField label="Variable" value={draft.name} placeholder="token" error={errorAt('name')} onChange={(e) => onChange({ name: e.target.value })} />
      <SelectField label="From" value={draft.source} error={errorAt('source')} onChange={(e) => onChange({ source: e.target.value as ExtractionDraft['source'] })}>
        {EXTRACTION_SOURCES.map((s) => (
          <option key={s} value={s}>
            {EXTRACTION_LABELS[s]}
          </option>
        ))}
      </SelectField>
      {property && <TextField label={property} value={draft.property} error={errorAt('property')} onChange={(e) => onChange({ property: e.target.value })} />}
      <button type="button" className="row-remove" aria-label={`Remove ${name.toLowerCase()}`} onClick={onRemove}>
        Remove
      </button>
    </div>
  );
}
