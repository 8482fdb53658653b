// "New incident": what is wrong, how far along the team is, how bad it is and for which of the
// page's services, the first message to visitors and, to backdate it, when it began.
import { useState, type FormEvent } from 'react';
import { TextAreaField, TextField } from '../../../ui/field';
import { FormActions } from '../../../ui/form-actions';
import { formErrors } from '../../../ui/form-errors';
import { browserTimeZone, localInputToIso } from '../../../ui/local-time';
import { FormProblems } from '../../../ui/page';
import { AffectedServices, type NamedService } from './affected-services';
import { useCreateIncident } from './incident-api';
import { ImpactSelect, StatusSelect } from './incident-fields';
import type { Affected, Impact, Incident, IncidentStatus } from './incident-types';
import '../status-pages.css';

const SHOWN_FIELDS = ['title', 'status', 'impact', 'affected', 'message', 'starts_at'];

export interface IncidentDraft {
  title: string;
  affected: Affected[];
  alertId?: string;
}

interface IncidentFormProps {
  pageId: string;
  services: NamedService[];
  initial?: IncidentDraft;
  onCancel(): void;
  onCreated(incident: Incident): void;
}

export function IncidentForm({ pageId, services, initial, onCancel, onCreated }: IncidentFormProps) {
  const create = useCreateIncident(pageId);
  const [title, setTitle] = useState(initial?.title ?? '');
  const [status, setStatus] = useState<IncidentStatus>('investigating');
  const [impact, setImpact] = useState<Impact>(initial?.affected[0]?.impact ?? 'minor');
  const [affected, setAffected] = useState<Affected[]>(initial?.affected ?? []);
  const [message, setMessage] = useState('');
  const [startsAt, setStartsAt] = useState('');
  const errors = formErrors(create.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const startsAtIso = localInputToIso(startsAt);
    const body = {
      title,
      status,
      impact,
      affected,
      message,
      ...(startsAtIso ? { starts_at: startsAtIso } : {}),
      ...(initial?.alertId ? { alert_id: initial.alertId } : {}),
    };
    create.mutate(body, { onSuccess: (incident) => onCreated(incident) });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(SHOWN_FIELDS)} />
      <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} error={errors.field('title')} required autoFocus />
      <div className="form-grid">
        <StatusSelect value={status} onChange={setStatus} error={errors.field('status')} />
        <ImpactSelect value={impact} onChange={setImpact} error={errors.field('impact')} />
      </div>
      <AffectedServices services={services} affected={affected} onChange={setAffected} defaultImpact={impact} error={errors.field('affected')} />
      <TextAreaField
        label="Message"
        value={message}
        onChange={(e) => setMessage(e.target.value)}
        error={errors.field('message')}
        hint="What visitors read first: what they may notice, and what you are doing about it."
        required
      />
      <TextField
        label="Started"
        type="datetime-local"
        value={startsAt}
        onChange={(e) => setStartsAt(e.target.value)}
        error={errors.field('starts_at')}
        hint={`Optional, your time zone (${browserTimeZone()}): leave empty for now, or give an earlier time if it began before you wrote this.`}
      />
      <FormActions onCancel={onCancel} busy={create.isPending} submitLabel="Create incident" />
    </form>
  );
}
