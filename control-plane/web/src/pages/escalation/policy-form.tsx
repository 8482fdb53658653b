// Create or edit an escalation policy: ordered steps, each notifying channels and teams once
// its delay has passed while the alert is still firing, and how often the steps repeat.
import { useState, type FormEvent } from 'react';
import { useSaveResource } from '../../api/resources';
import { SelectField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { CheckboxGroup } from '../channels/checkbox-group';
import type { EscalationPolicy } from './policy-types';
import { FormActions } from '../../ui/form-actions';

interface StepDraft {
  /** Stable React key: steps are added and removed in the middle. */
  key: number;
  delayMinutes: string;
  channelIds: string[];
  teamIds: string[];
}

interface Choices {
  channels: { id: string; name: string }[];
  teams: { id: string; name: string }[];
}

let nextKey = 0;
const newStep = (delayMinutes = '0'): StepDraft => ({ key: nextKey++, delayMinutes, channelIds: [], teamIds: [] });

const REPEAT_OPTIONS = [
  { value: 'false', label: 'No: run the steps once' },
  { value: 'true', label: 'Yes: until acknowledged, at most 10 more rounds' },
  ...Array.from({ length: 10 }, (_, i) => ({ value: String(i + 1), label: `${i + 1} more round${i ? 's' : ''}` })),
];

const repeatValue = (text: string): boolean | number => (text === 'true' ? true : text === 'false' ? false : Number(text));

export function PolicyForm({ policy, choices, onDone }: { policy?: EscalationPolicy; choices: Choices; onDone(): void }) {
  const [name, setName] = useState(policy?.name ?? '');
  const [repeat, setRepeat] = useState(String(policy?.repeat ?? false));
  const [steps, setSteps] = useState<StepDraft[]>(() =>
    policy ? policy.steps.map((s) => ({ key: nextKey++, delayMinutes: String(s.delay_minutes), channelIds: s.channel_ids, teamIds: s.team_ids ?? [] })) : [newStep()],
  );
  const save = useSaveResource<EscalationPolicy>('/escalation-policies');
  const errors = formErrors(save.error);
  const changeStep = (key: number, change: Partial<StepDraft>) => setSteps((all) => all.map((s) => (s.key === key ? { ...s, ...change } : s)));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = {
      name,
      repeat: repeatValue(repeat),
      steps: steps.map((s) => ({ delay_minutes: s.delayMinutes.trim() === '' ? 0 : Number(s.delayMinutes), channel_ids: s.channelIds, team_ids: s.teamIds })),
    };
    save.mutate({ id: policy?.id, body }, { onSuccess: onDone });
  };

  const stepPaths = steps.flatMap((_, i) => [`steps.${i}.delay_minutes`, `steps.${i}.channel_ids`, `steps.${i}.team_ids`]);
  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['name', 'repeat', ...stepPaths])} />
      <div className="form-grid">
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} required autoFocus />
        <SelectField label="Repeat" value={repeat} onChange={(e) => setRepeat(e.target.value)} error={errors.field('repeat')} hint="While the alert stays firing.">
          {REPEAT_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </SelectField>
      </div>
      {steps.map((step, i) => (
        <fieldset key={step.key} className="policy-step">
          <legend>Step {i + 1}</legend>
          <TextField
            label="Delay (minutes)"
            type="number"
            min={0}
            inputMode="numeric"
            value={step.delayMinutes}
            onChange={(e) => changeStep(step.key, { delayMinutes: e.target.value })}
            error={errors.field(`steps.${i}.delay_minutes`)}
            hint={i === 0 ? 'After the alert fires; 0: at once.' : 'After the step before.'}
          />
          <CheckboxGroup
            legend="Channels"
            options={choices.channels.map((c) => ({ value: c.id, label: c.name }))}
            selected={step.channelIds}
            onChange={(channelIds) => changeStep(step.key, { channelIds })}
            error={errors.field(`steps.${i}.channel_ids`)}
            none="No notification channel yet: create one under Notification channels."
          />
          <CheckboxGroup
            legend="Teams"
            options={choices.teams.map((t) => ({ value: t.id, label: t.name }))}
            selected={step.teamIds}
            onChange={(teamIds) => changeStep(step.key, { teamIds })}
            error={errors.field(`steps.${i}.team_ids`)}
            hint="Every member of a chosen team gets an email."
            none="No team yet."
          />
          {steps.length > 1 && (
            <button type="button" className="danger" onClick={() => setSteps((all) => all.filter((s) => s.key !== step.key))}>
              Remove step {i + 1}
            </button>
          )}
        </fieldset>
      ))}
      <button type="button" onClick={() => setSteps((all) => [...all, newStep('15')])}>
        Add step
      </button>
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={policy ? 'Save' : 'Create policy'} />
    </form>
  );
}
