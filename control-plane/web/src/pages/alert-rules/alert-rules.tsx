// Alert rules: which services they cover, when their results open an alert, and whom it
// notifies. Members and above create, edit and delete them.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useDeleteResource, useResourceList } from '../../api/resources';
import type { Service, ServicesSummary } from '../../api/types';
import { useOrg, useSession } from '../../session/session';
import { Dialog } from '../../ui/dialog';
import { ListTable } from '../../ui/list-table';
import { CreateButton, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import type { Channel } from '../channels/channel-types';
import type { EscalationPolicy, Team } from '../escalation/policy-types';
import { RuleForm, type RuleChoices } from './rule-form';
import { conditionSummary, selectorSummary, type AlertRule } from './rule-types';

export default function AlertRulesPage() {
  const { canWrite } = useSession();
  const org = useOrg();
  const rules = useResourceList<AlertRule>('/alert-rules');
  const services = useResourceList<Service>('/services', { sort: 'name' });
  const channels = useResourceList<Channel>('/notification-channels');
  const policies = useResourceList<EscalationPolicy>('/escalation-policies');
  const teams = useResourceList<Team>('/teams');
  const summary = useQuery({ queryKey: queryKeys.servicesSummary(org), queryFn: () => api.get<ServicesSummary>('/services/summary'), enabled: canWrite });
  const remove = useDeleteResource('/alert-rules');
  const [editing, setEditing] = useState<AlertRule | 'new' | null>(null);

  const choices: RuleChoices = { services: services.data ?? [], channels: channels.data ?? [], policies: policies.data ?? [], teams: teams.data ?? [], known: summary.data };
  const nameOf = (list: { id: string; name: string }[], id: string) => list.find((x) => x.id === id)?.name ?? 'unknown';

  const notifies = (rule: AlertRule) => {
    const c = rule.condition;
    const targets = [...(c.channel_ids ?? []).map((id) => nameOf(choices.channels, id)), ...(c.team_ids ?? []).map((id) => `team ${nameOf(choices.teams, id)}`)];
    if (c.channel_ids || c.team_ids) return targets.length ? targets.join(', ') : 'Nobody';
    if (c.escalation_policy_id) return `Escalation policy ${nameOf(choices.policies, c.escalation_policy_id)}`;
    return 'Every enabled channel';
  };

  return (
    <Page
      title="Alert rules"
      actions={canWrite && <CreateButton onClick={() => setEditing('new')}>Create rule</CreateButton>}
    >
      <QueryState query={rules} what="alert rules" empty={<>No alert rule yet, so no alert opens when a service fails. {canWrite ? 'Create a rule to be alerted.' : 'A member of the organization can create one.'}</>}>
        {(data) => (
          <ListTable columns={['Name', 'Covers', 'Severity', 'Condition', 'Notifies', 'Enabled']} actions={canWrite}>
            {data.map((rule) => (
              <tr key={rule.id}>
                <th scope="row">{rule.name}</th>
                <td>
                  {rule.service_id ? (
                    <Link to={`/services/${rule.service_id}`}>{nameOf(choices.services, rule.service_id)}</Link>
                  ) : (
                    selectorSummary(rule.condition, (id) => nameOf(choices.services, id))
                  )}
                </td>
                <td>{rule.severity}</td>
                <td>{conditionSummary(rule.condition)}</td>
                <td>{notifies(rule)}</td>
                <td>{rule.enabled ? 'Enabled' : 'Disabled'}</td>
                {canWrite && (
                  <td>
                    <EditDeleteActions name={rule.name} what={`rule "${rule.name}"`} onEdit={() => setEditing(rule)} onDelete={() => remove.mutateAsync(rule.id)} />
                  </td>
                )}
              </tr>
            ))}
          </ListTable>
        )}
      </QueryState>
      <Dialog title={editing === 'new' ? 'Create alert rule' : `Edit ${editing?.name ?? ''}`} open={editing !== null} onClose={() => setEditing(null)} wide>
        {editing !== null && <RuleForm rule={editing === 'new' ? undefined : editing} choices={choices} onDone={() => setEditing(null)} />}
      </Dialog>
    </Page>
  );
}
