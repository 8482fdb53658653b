// Create or change a silence: which services (matchers), from when (empty: now) until when,
// and why. Editing sends only the times that were changed, so a start is never moved by the
// minute the input rounds it to.
import { useState, type FormEvent } from 'react';
import type { ServicesSummary } from '../../api/types';
import { TextAreaField, TextField } from '../../ui/field';
import { FormActions } from '../../ui/form-actions';
import { formErrors } from '../../ui/form-errors';
import { browserTimeZone, localInputToIso, toLocalInput } from '../../ui/local-time';
import { FormProblems } from '../../ui/page';
import { MatcherFields } from './matcher-fields';
import { draftOfMatchers, matchersOf } from './matchers';
import { useSaveSilence } from './silence-api';
import type { Silence, SilenceBody } from './silence-types';

const HOUR_MS = 3_600_000;

interface SilenceFormProps {
  silence?: Silence;
  services: { id: string; name: string }[];
  known: ServicesSummary | undefined;
  onDone(): void;
}

export function SilenceForm({ silence, services, known, onDone }: SilenceFormProps) {
  const [initial] = useState(() => ({
    startsAt: toLocalInput(silence?.starts_at),
    endsAt: toLocalInput(silence?.ends_at ?? new Date(Date.now() + HOUR_MS)),
  }));
  const [matchers, setMatchers] = useState(() => draftOfMatchers(silence?.matchers));
  const [startsAt, setStartsAt] = useState(initial.startsAt);
  const [endsAt, setEndsAt] = useState(initial.endsAt);
  const [comment, setComment] = useState(silence?.comment ?? '');
  const save = useSaveSilence();
  const errors = formErrors(save.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: Partial<SilenceBody> = { matchers: matchersOf(matchers), comment };
    if (!silence || startsAt !== initial.startsAt) body.starts_at = localInputToIso(startsAt);
    if (!silence || endsAt !== initial.endsAt) body.ends_at = localInputToIso(endsAt) ?? '';
    save.mutate({ id: silence?.id, body }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['matchers', 'starts_at', 'ends_at', 'comment'])} />
      <MatcherFields
        legend="Services it covers"
        hint="Every matcher given must hold (at least one). Its alerts still open and show as silenced, but notify nobody."
        draft={matchers}
        onChange={setMatchers}
        errors={errors}
        path="matchers"
        services={services}
        known={known}
      />
      <div className="form-grid">
        <TextField
          label="Starts"
          type="datetime-local"
          value={startsAt}
          onChange={(e) => setStartsAt(e.target.value)}
          error={errors.field('starts_at')}
          hint={`Empty: now. Your time zone (${browserTimeZone()}).`}
        />
        <TextField label="Ends" type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} error={errors.field('ends_at')} required />
      </div>
      <TextAreaField label="Comment" rows={2} value={comment} onChange={(e) => setComment(e.target.value)} error={errors.field('comment')} hint="Why: everyone who sees its silenced alerts reads it." required />
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={silence ? 'Save' : 'Create silence'} />
    </form>
  );
}
