// The assertions of a check or of one MULTISTEP step, a row each: what is read (source and,
// for headers and JSON, which one), how it compares, and with what.
import { SelectField, TextField } from '../../ui/field';
import type { FormErrors } from '../../ui/form-errors';
import { COMPARISONS, comparisonLabel, isMultiValued, propertyLabel, sourceLabel, takesTarget } from './assertion-catalogue';
import { newAssertion, removeRow, updateRow, type AssertionDraft } from './assertion-values';

type Sources = Parameters<typeof isMultiValued>[0];

interface AssertionRowsProps {
  drafts: AssertionDraft[];
  sources: Sources;
  onChange(drafts: AssertionDraft[]): void;
  errors: FormErrors;
  /** Where the API reports this list's problems, e.g. "options.assertions". */
  path: string;
  /** What a row is called, for people and tests: "Assertion 1", "Step 2 assertion 1". */
  rowName(n: number): string;
  /** The add button's accessible name. */
  addName: string;
}

export function AssertionRows({ drafts, sources, onChange, errors, path, rowName, addName }: AssertionRowsProps) {
  return (
    <div className="assertion-rows">
      {drafts.map((draft, i) => (
        <AssertionRow
          key={draft.id}
          draft={draft}
          sources={sources}
          name={rowName(i + 1)}
          errorAt={(field) => errors.field(`${path}.${i}.${field}`)}
          onChange={(change) => onChange(updateRow(drafts, draft.id, change))}
          onRemove={() => onChange(removeRow(drafts, draft.id))}
        />
      ))}
      <button type="button" aria-label={addName} onClick={() => onChange([...drafts, newAssertion(Object.keys(sources)[0]!)])}>
        Add assertion
      </button>
    </div>
  );
}

interface AssertionRowProps {
  draft: AssertionDraft;
  sources: Sources;
  name: string;
  errorAt(field: string): string | undefined;
  onChange(change: Partial<AssertionDraft>): void;
  onRemove(): void;
}

function AssertionRow({ draft, sources, name, errorAt, onChange, onRemove }: AssertionRowProps) {
  const property = propertyLabel(sources, draft.source);
  const offered = Object.keys(sources);
  return (
    <div className="assertion-row" role="group" aria-label={name}>
      <SelectField label="Source" value={draft.source} error={errorAt('source')} onChange={(e) => onChange({ source: e.target.value })}>
        {/* A source kept from another check type stays visible, for the API to refuse. */}
        {!offered.includes(draft.source) && <option value={draft.source}>{draft.source} (not for this check type)</option>}
        {offered.map((source) => (
          <option key={source} value={source}>
            {sourceLabel(source)}
          </option>
        ))}
      </SelectField>
      {property && (
        <TextField
          label={property}
          value={draft.property}
          placeholder={property === 'JSONPath' ? '$.status' : 'content-type'}
          error={errorAt('property')}
          onChange={(e) => onChange({ property: e.target.value })}
        />
      )}
      <SelectField label="Comparison" value={draft.comparison} error={errorAt('comparison')} onChange={(e) => onChange({ comparison: e.target.value as AssertionDraft['comparison'] })}>
        {COMPARISONS.map((c) => (
          <option key={c} value={c}>
            {comparisonLabel(c)}
          </option>
        ))}
      </SelectField>
      {takesTarget(draft.comparison) && <TextField label="Target" value={draft.target} error={errorAt('target')} onChange={(e) => onChange({ target: e.target.value })} />}
      {isMultiValued(sources, draft.source) && (
        <SelectField label="Match" value={draft.match} error={errorAt('match')} onChange={(e) => onChange({ match: e.target.value as AssertionDraft['match'] })}>
          <option value="">Any value</option>
          <option value="all">All values</option>
        </SelectField>
      )}
      <button type="button" className="row-remove" aria-label={`Remove ${name.toLowerCase()}`} onClick={onRemove}>
        Remove
      </button>
    </div>
  );
}
