// An update of an incident: posting one (its status, a message and, when they changed, the
// affected services) or correcting one already posted (status and message).
import { useState, type FormEvent } from 'react';
import { TextAreaField } from '../../../ui/field';
import { FormActions } from '../../../ui/form-actions';
import { formErrors } from '../../../ui/form-errors';
import { Disclosure } from '../../../ui/disclosure';
import { FormProblems } from '../../../ui/page';
import { AffectedServices, type NamedService } from './affected-services';
import { useEditUpdate, usePostUpdate } from './incident-api';
import { StatusSelect } from './incident-fields';
import type { Affected, Incident, IncidentStatus, IncidentUpdate } from './incident-types';

const sameAffected = (a: Affected[], b: Affected[]) =>
  a.length === b.length && a.every((x) => b.some((y) => y.service_id === x.service_id && y.impact === x.impact));

interface PostUpdateFormProps {
  pageId: string;
  incident: Incident;
  services: NamedService[];
  /** The status the form starts with (Resolve starts it at resolved). */
  status?: IncidentStatus;
  message?: string;
  submitLabel?: string;
  onDone(): void;
}

export function PostUpdateForm({ pageId, incident, services, status: initialStatus, message: initialMessage = '', submitLabel = 'Post update', onDone }: PostUpdateFormProps) {
  const post = usePostUpdate(pageId, incident.id);
  const current = incident.affected.map(({ service_id, impact }) => ({ service_id, impact }));
  const [status, setStatus] = useState<IncidentStatus>(initialStatus ?? incident.status);
  const [message, setMessage] = useState(initialMessage);
  const [affected, setAffected] = useState<Affected[]>(current);
  const errors = formErrors(post.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // Affected services go only when changed: the API keeps the list otherwise.
    const body = { status, message, ...(sameAffected(affected, current) ? {} : { affected }) };
    post.mutate(body, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['status', 'message', 'affected'])} />
      <StatusSelect value={status} onChange={setStatus} error={errors.field('status')} />
      <TextAreaField label="Message" value={message} onChange={(e) => setMessage(e.target.value)} error={errors.field('message')} required rows={3} />
      <Disclosure title="Affected services" summary={`${current.length} now`} forceOpen={errors.field('affected') !== undefined}>
        <AffectedServices services={services} affected={affected} onChange={setAffected} defaultImpact={incident.impact} error={errors.field('affected')} />
      </Disclosure>
      <FormActions onCancel={onDone} busy={post.isPending} submitLabel={submitLabel} />
    </form>
  );
}

export function EditUpdateForm({ pageId, incidentId, update, onDone }: { pageId: string; incidentId: string; update: IncidentUpdate; onDone(): void }) {
  const edit = useEditUpdate(pageId, incidentId);
  const [status, setStatus] = useState<IncidentStatus>(update.status);
  const [message, setMessage] = useState(update.message);
  const errors = formErrors(edit.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    edit.mutate({ updateId: update.id, body: { status, message } }, { onSuccess: onDone });
  };
  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['status', 'message'])} />
      <StatusSelect value={status} onChange={setStatus} error={errors.field('status')} />
      <TextAreaField label="Message" value={message} onChange={(e) => setMessage(e.target.value)} error={errors.field('message')} required autoFocus rows={4} />
      <FormActions onCancel={onDone} busy={edit.isPending} submitLabel="Save" />
    </form>
  );
}
