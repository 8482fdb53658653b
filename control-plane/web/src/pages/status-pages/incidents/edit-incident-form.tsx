// Corrects an incident itself: its title, overall impact and when it began. What happens next
// is told by posting an update.
import { useState, type FormEvent } from 'react';
import { TextField } from '../../../ui/field';
import { FormActions } from '../../../ui/form-actions';
import { formErrors } from '../../../ui/form-errors';
import { browserTimeZone, localInputToIso, toLocalInput } from '../../../ui/local-time';
import { FormProblems } from '../../../ui/page';
import { useEditIncident } from './incident-api';
import { ImpactSelect } from './incident-fields';
import type { Impact, Incident } from './incident-types';

export function EditIncidentForm({ pageId, incident, onDone }: { pageId: string; incident: Incident; onDone(): void }) {
  const edit = useEditIncident(pageId, incident.id);
  const [title, setTitle] = useState(incident.title);
  const [impact, setImpact] = useState<Impact>(incident.impact);
  const [startsAt, setStartsAt] = useState(() => toLocalInput(incident.starts_at));
  const errors = formErrors(edit.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    edit.mutate({ title, impact, starts_at: localInputToIso(startsAt) }, { onSuccess: onDone });
  };
  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['title', 'impact', 'starts_at'])} />
      <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} error={errors.field('title')} required autoFocus />
      <ImpactSelect value={impact} onChange={setImpact} error={errors.field('impact')} />
      <TextField
        label="Started"
        type="datetime-local"
        value={startsAt}
        onChange={(e) => setStartsAt(e.target.value)}
        error={errors.field('starts_at')}
        hint={`Your time zone (${browserTimeZone()}).`}
        required
      />
      <FormActions onCancel={onDone} busy={edit.isPending} submitLabel="Save" />
    </form>
  );
}
