// One option of the chosen check type as a form field of its kind. A stored secret is never
// shown: its field says one is kept, and a checkbox removes it.
import { CheckboxField, SelectField, TextAreaField, TextField } from '../../ui/field';
import type { FormErrors } from '../../ui/form-errors';
import type { OptionSpec } from './check-catalogue';
import { isSecretReference, SECRET_MASK, valueAt, type ServiceFormValues } from './form-values';

export interface OptionFieldsProps {
  specs: OptionSpec[];
  values: ServiceFormValues;
  /** The stored options of the service being edited. */
  stored?: Record<string, unknown>;
  setOption(key: string, value: string): void;
  setCleared(keys: string[]): void;
  errors: FormErrors;
}

export function OptionFields({ specs, ...props }: OptionFieldsProps) {
  return (
    <div className="form-grid">
      {specs.map((spec) => (
        <OptionField key={spec.key} spec={spec} {...props} />
      ))}
    </div>
  );
}

function OptionField({ spec, values, stored, setOption, setCleared, errors }: Omit<OptionFieldsProps, 'specs'> & { spec: OptionSpec }) {
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
    case 'json':
      return <TextAreaField {...common} rows={3} className="mono" spellCheck={false} />;
    case 'number':
      return <TextField {...common} type="number" inputMode="numeric" />;
    case 'secret': {
      const isStored = valueAt(stored, spec.key) === SECRET_MASK;
      const cleared = values.cleared_secrets.includes(spec.key);
      const hint = isStored ? 'A value is stored: leave empty to keep it.' : `${spec.hint ? `${spec.hint} ` : ''}Or an organization secret: {{secrets.NAME}}.`;
      return (
        <div>
          {spec.multiline ? (
            <TextAreaField {...common} rows={3} autoComplete="off" spellCheck={false} hint={hint} />
          ) : (
            // A reference is a name, not a secret: it is shown as typed.
            <TextField {...common} type={isSecretReference(value) ? 'text' : 'password'} autoComplete="new-password" hint={hint} />
          )}
          {isStored && (
            <CheckboxField
              label={`Remove the stored ${spec.label.toLowerCase()}`}
              checked={cleared}
              onChange={(e) => setCleared(e.target.checked ? [...values.cleared_secrets, spec.key] : values.cleared_secrets.filter((k) => k !== spec.key))}
            />
          )}
        </div>
      );
    }
    default:
      return <TextField {...common} />;
  }
}
