// Create or edit an alert rule: which service, how severe, when it fires and whom it notifies.
// The API validates everything; its messages appear at the fields they name.
import { useState, type FormEvent } from 'react';
import { useSaveResource } from '../../api/resources';
import { CheckboxField, SelectField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { CheckboxGroup } from '../channels/checkbox-group';
import { DEFAULT_STATUSES, SEVERITIES, type AlertRule, type RuleCondition, type RuleStatus, type Severity } from './rule-types';
import { FormActions } from '../../ui/form-actions';

export interface RuleChoices {
  services: { id: string; name: string }[];
  channels: { id: string; name: string }[];
  policies: { id: string; name: string }[];
  teams: { id: string; name: string }[];
}

interface Draft {
  name: string;
  serviceId: string;
  severity: Severity;
  enabled: boolean;
  statuses: RuleStatus[];
  consecutiveFailures: string;
  responseTimeAbove: string;
  minFailingLocations: string;
  channelIds: string[];
  teamIds: string[];
  policyId: string;
}

const KNOWN_KEYS = ['statuses', 'consecutive_failures', 'response_time_ms_above', 'min_failing_locations', 'escalation_policy_id', 'channel_ids', 'team_ids'];
const STATUS_CHOICES: { value: RuleStatus; label: string }[] = [
  { value: 'RED', label: 'RED (failing)' },
  { value: 'YELLOW', label: 'YELLOW (slow)' },
  { value: 'GREEN', label: 'GREEN (passing)' },
];

const numberText = (n: number | null | undefined) => (typeof n === 'number' ? String(n) : '');
const numberOrNull = (text: string) => (text.trim() === '' ? null : Number(text));

function draftOf(rule: AlertRule | undefined): Draft {
  const c = rule?.condition ?? {};
  return {
    name: rule?.name ?? '',
    serviceId: rule?.service_id ?? '',
    severity: rule?.severity ?? 'critical',
    enabled: rule?.enabled ?? true,
    statuses: c.statuses ?? DEFAULT_STATUSES,
    consecutiveFailures: numberText(c.consecutive_failures),
    responseTimeAbove: numberText(c.response_time_ms_above),
    minFailingLocations: numberText(c.min_failing_locations),
    channelIds: c.channel_ids ?? [],
    teamIds: c.team_ids ?? [],
    policyId: c.escalation_policy_id ?? '',
  };
}

function conditionOf(d: Draft, previous: RuleCondition | undefined): RuleCondition {
  const kept = Object.fromEntries(Object.entries(previous ?? {}).filter(([key]) => !KNOWN_KEYS.includes(key)));
  // No channel and no team: the escalation policy, else every enabled channel, is notified.
  const targeted = d.channelIds.length > 0 || d.teamIds.length > 0;
  return {
    ...kept,
    statuses: d.statuses,
    ...(d.consecutiveFailures.trim() ? { consecutive_failures: Number(d.consecutiveFailures) } : {}),
    response_time_ms_above: numberOrNull(d.responseTimeAbove),
    min_failing_locations: numberOrNull(d.minFailingLocations),
    escalation_policy_id: d.policyId || null,
    channel_ids: targeted ? d.channelIds : null,
    team_ids: targeted ? d.teamIds : null,
  };
}

const SHOWN_PATHS = ['name', 'service_id', 'severity', 'enabled', ...KNOWN_KEYS.map((k) => `condition.${k}`)];

export function RuleForm({ rule, choices, onDone }: { rule?: AlertRule; choices: RuleChoices; onDone(): void }) {
  const [draft, setDraft] = useState(() => draftOf(rule));
  const save = useSaveResource<AlertRule>('/alert-rules');
  const errors = formErrors(save.error);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = {
      name: draft.name,
      service_id: draft.serviceId || null,
      severity: draft.severity,
      enabled: draft.enabled,
      condition: conditionOf(draft, rule?.condition),
    };
    save.mutate({ id: rule?.id, body }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(SHOWN_PATHS)} />
      <div className="form-grid">
        <TextField label="Name" value={draft.name} onChange={(e) => set('name', e.target.value)} error={errors.field('name')} required autoFocus />
        <SelectField label="Service" value={draft.serviceId} onChange={(e) => set('serviceId', e.target.value)} error={errors.field('service_id')}>
          <option value="">All services</option>
          {choices.services.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </SelectField>
        <SelectField label="Severity" value={draft.severity} onChange={(e) => set('severity', e.target.value as Severity)} error={errors.field('severity')}>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </SelectField>
      </div>
      <CheckboxGroup
        legend="Statuses that fire"
        options={STATUS_CHOICES}
        selected={draft.statuses}
        onChange={(statuses) => set('statuses', statuses as RuleStatus[])}
        error={errors.field('condition.statuses')}
        none=""
      />
      <div className="form-grid">
        <TextField
          label="Consecutive failures"
          type="number"
          min={1}
          inputMode="numeric"
          value={draft.consecutiveFailures}
          onChange={(e) => set('consecutiveFailures', e.target.value)}
          error={errors.field('condition.consecutive_failures')}
          hint="Results in a row before it fires; empty: 1."
        />
        <TextField
          label="Response time above (ms)"
          type="number"
          min={0}
          inputMode="numeric"
          value={draft.responseTimeAbove}
          onChange={(e) => set('responseTimeAbove', e.target.value)}
          error={errors.field('condition.response_time_ms_above')}
          hint="Also fires when a result is slower; empty: never for speed."
        />
        <TextField
          label="Min failing locations"
          type="number"
          min={1}
          inputMode="numeric"
          value={draft.minFailingLocations}
          onChange={(e) => set('minFailingLocations', e.target.value)}
          error={errors.field('condition.min_failing_locations')}
          hint="Locations that must agree; empty: 1."
        />
      </div>
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
