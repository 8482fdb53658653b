// Narrows the audit log: by who (an e-mail or an id), what (resource, its id, the action) and
// when (from, to). The filter applies when submitted, not at every keystroke.
import { useState, type FormEvent } from 'react';
import { TextField } from '../../ui/field';
import type { FormErrors } from '../../ui/form-errors';
import { NO_FILTER, type AuditFilter } from './audit-types';

/** Resources and actions the log holds most often, offered while typing. */
const RESOURCES = ['service', 'alert_rule', 'notification_channel', 'escalation_policy', 'maintenance_window', 'silence', 'status_page', 'incident', 'team', 'member', 'api_key', 'org_secret', 'agent', 'heartbeat', 'session', 'user', 'organization', 'invitation'];
const ACTIONS = ['create', 'update', 'delete', 'sign_in', 'sign_in_failed', 'register', 'acknowledge', 'resolve', 'expire'];

interface AuditFilterFormProps {
  applied: AuditFilter;
  onApply(filter: AuditFilter): void;
  errors: FormErrors;
}

export function AuditFilterForm({ applied, onApply, errors }: AuditFilterFormProps) {
  const [draft, setDraft] = useState(applied);
  const set = (field: keyof AuditFilter) => (e: { target: { value: string } }) => setDraft({ ...draft, [field]: e.target.value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-label="Filter the audit log">
      <div className="form-grid audit-filter">
        <TextField label="Who" value={draft.actor} onChange={set('actor')} error={errors.field('actor')} hint="An e-mail address, a user id or an API key id." />
        <TextField label="Resource" value={draft.resource} onChange={set('resource')} error={errors.field('resource')} list="audit-resources" />
        <TextField label="Resource id" value={draft.resource_id} onChange={set('resource_id')} error={errors.field('resource_id')} />
        <TextField label="Action" value={draft.action} onChange={set('action')} error={errors.field('action')} list="audit-actions" />
        <TextField label="From" type="datetime-local" value={draft.from} onChange={set('from')} error={errors.field('from')} />
        <TextField label="To" type="datetime-local" value={draft.to} onChange={set('to')} error={errors.field('to')} />
      </div>
      <datalist id="audit-resources">
        {RESOURCES.map((r) => (
          <option key={r} value={r} />
        ))}
      </datalist>
      <datalist id="audit-actions">
        {ACTIONS.map((a) => (
          <option key={a} value={a} />
        ))}
      </datalist>
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            setDraft(NO_FILTER);
            onApply(NO_FILTER);
          }}
        >
          Clear filters
        </button>
        <button type="submit" className="primary">
          Apply filters
        </button>
      </div>
    </form>
  );
}
