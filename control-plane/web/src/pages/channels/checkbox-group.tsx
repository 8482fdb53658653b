// A labelled set of checkboxes for choosing several things (channels, teams, services), with
// the API's message for the whole set below it. Long sets get a filter box.
import { useId, useState } from 'react';
import { CheckboxField, TextField } from '../../ui/field';
import './checkbox-group.css';

interface Option {
  value: string;
  label: string;
}

interface CheckboxGroupProps {
  legend: string;
  options: Option[];
  selected: string[];
  onChange(selected: string[]): void;
  error?: string;
  hint?: string;
  /** Shown instead of the set when there is nothing to choose. */
  none: string;
}

const FILTER_FROM = 12;

export function CheckboxGroup({ legend, options, selected, onChange, error, hint, none }: CheckboxGroupProps) {
  const id = useId();
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLowerCase();
  const shown = needle ? options.filter((o) => o.label.toLowerCase().includes(needle) || selected.includes(o.value)) : options;
  const toggle = (value: string, on: boolean) => onChange(on ? [...selected, value] : selected.filter((v) => v !== value));
  return (
    <fieldset className="checkbox-group" aria-describedby={[hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined}>
      <legend>{legend}</legend>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {options.length === 0 ? (
        <p className="muted">{none}</p>
      ) : (
        <>
          {options.length >= FILTER_FROM && <TextField label={`Filter ${legend.toLowerCase()}`} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} />}
          <div className="checkbox-group-items">
            {shown.map((option) => (
              <CheckboxField key={option.value} label={option.label} checked={selected.includes(option.value)} onChange={(e) => toggle(option.value, e.target.checked)} />
            ))}
          </div>
        </>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}
