// Create or edit an alert rule: which services (one, those a selector picks, or all), how
// severe, when it fires, when it resolves and reminds, and whom it notifies. The API validates
// everything; its messages appear at the fields they name.
import { useState, type FormEvent } from 'react';
import { useSaveResource } from '../../api/resources';
import type { ServicesSummary } from '../../api/types';
import { CheckboxField, SelectField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { CheckboxGroup } from '../channels/checkbox-group';
import { MatcherFields } from '../silences/matcher-fields';
import { BY_SELECTOR, draftOf, ruleBodyOf, SHOWN_PATHS, type Draft } from './rule-draft';
import { SEVERITIES, type AlertRule, type RuleStatus, type Severity } from './rule-types';
import { FormActions } from '../../ui/form-actions';

export interface RuleChoices {
  services: { id: string; name: string }[];
  channels: { id: string; name: string }[];
  policies: { id: string; name: string }[];
  teams: { id: string; name: string }[];
  /** The organization's tags, environments and locations, offered to a selector. */
  known?: ServicesSummary;
}

const STATUS_CHOICES: { value: RuleStatus; label: string }[] = [
  { value: 'RED', label: 'RED (failing)' },
  { value: 'YELLOW', label: 'YELLOW (slow)' },
  { value: 'GREEN', label: 'GREEN (passing)' },
];

/** The condition's numbers, each a field of the same kind: the draft key, the API path its errors name, the bounds. */
const NUMBER_FIELDS: { key: NumberKey; label: string; path: string; min: number; max?: number; hint: string }[] = [
  { key: 'consecutiveFailures', label: 'Consecutive failures', path: 'condition.consecutive_failures', min: 1, hint: 'Results in a row before it fires; empty: 1.' },
  { key: 'responseTimeAbove', label: 'Response time above (ms)', path: 'condition.response_time_ms_above', min: 0, hint: 'Also fires when a result is slower; empty: never for speed.' },
  { key: 'minFailingLocations', label: 'Min failing locations', path: 'condition.min_failing_locations', min: 1, hint: 'Locations that must agree; empty: 1.' },
  { key: 'recoveryThreshold', label: 'Recovery threshold', path: 'condition.recovery_threshold', min: 1, max: 20, hint: 'GREEN results in a row before its alert resolves itself; empty: 1.' },
  { key: 'repeatInterval', label: 'Repeat interval (minutes)', path: 'condition.repeat_interval_minutes', min: 1, max: 10080, hint: 'Reminders while its alert fires unacknowledged; empty: none.' },
];
type NumberKey = 'consecutiveFailures' | 'responseTimeAbove' | 'minFailingLocations' | 'recoveryThreshold' | 'repeatInterval';

export function RuleForm({ rule, choices, onDone }: { rule?: AlertRule; choices: RuleChoices; onDone(): void }) {
  const [draft, setDraft] = useState(() => draftOf(rule));
  const save = useSaveResource<AlertRule>('/alert-rules');
  const errors = formErrors(save.error);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ id: rule?.id, body: ruleBodyOf(draft, rule) }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(SHOWN_PATHS)} />
      <div className="form-grid">
        <TextField label="Name" value={draft.name} onChange={(e) => set('name', e.target.value)} error={errors.field('name')} required autoFocus />
        <SelectField
          label="Service"
          value={draft.serviceId}
          onChange={(e) => set('serviceId', e.target.value)}
          error={errors.field('service_id')}
          hint="All services, the services a selector picks (including those made later), or one service."
        >
          <option value="">All services</option>
          <option value={BY_SELECTOR}>Services matching a selector</option>
          <optgroup label="One service">
            {choices.services.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </optgroup>
        </SelectField>
        <SelectField label="Severity" value={draft.severity} onChange={(e) => set('severity', e.target.value as Severity)} error={errors.field('severity')}>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </SelectField>
      </div>
      {draft.serviceId === BY_SELECTOR && (
        <MatcherFields
          legend="Selector"
          hint="The rule covers every service matching all of these, including services created later."
          draft={draft.selector}
          onChange={(selector) => set('selector', selector)}
          errors={errors}
          path="condition.selector"
          known={choices.known}
        />
      )}
      <CheckboxGroup
        legend="Statuses that fire"
        options={STATUS_CHOICES}
        selected={draft.statuses}
        onChange={(statuses) => set('statuses', statuses as RuleStatus[])}
        error={errors.field('condition.statuses')}
        hint="None: a rule only about missing data or offline agents (below)."
        none=""
      />
      <div className="form-grid">
        {NUMBER_FIELDS.map((f) => (
          <TextField
            key={f.key}
            label={f.label}
            type="number"
            min={f.min}
            max={f.max}
            inputMode="numeric"
            value={draft[f.key]}
            onChange={(e) => set(f.key, e.target.value)}
            error={errors.field(f.path)}
            hint={f.hint}
          />
        ))}
      </div>
      <CheckboxField
        label="Alert when a service has no data"
        checked={draft.noData}
        onChange={(e) => set('noData', e.target.checked)}
        error={errors.field('condition.no_data')}
        hint="A service it covers got no result for three intervals (its agents may be down)."
      />
      <CheckboxField
        label="Alert when an agent or location goes offline"
        checked={draft.agentOffline}
        onChange={(e) => set('agentOffline', e.target.checked)}
        error={errors.field('condition.agent_offline')}
        hint="Its targets hear of silent agents and dark locations; while no rule asks for them, every enabled channel does."
      />
      <CheckboxGroup
        legend="Notification channels"
        options={choices.channels.map((c) => ({ value: c.id, label: c.name }))}
        selected={draft.channelIds}
        onChange={(ids) => set('channelIds', ids)}
        error={errors.field('condition.channel_ids')}
        hint="None chosen (and no team): the escalation policy's steps, or else every enabled channel."
        none="No notification channel yet: every enabled channel is notified once you create one."
      />
      <CheckboxGroup
        legend="Teams"
        options={choices.teams.map((t) => ({ value: t.id, label: t.name }))}
        selected={draft.teamIds}
        onChange={(ids) => set('teamIds', ids)}
        error={errors.field('condition.team_ids')}
        hint="Every member of a chosen team gets an email."
        none="No team yet."
      />
      <SelectField
        label="Escalation policy"
        value={draft.policyId}
        onChange={(e) => set('policyId', e.target.value)}
        error={errors.field('condition.escalation_policy_id')}
        hint="Used when no channel or team is chosen above."
      >
        <option value="">None</option>
        {choices.policies.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </SelectField>
      <CheckboxField label="Enabled" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} error={errors.field('enabled')} />
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={rule ? 'Save' : 'Create rule'} />
    </form>
  );
}
