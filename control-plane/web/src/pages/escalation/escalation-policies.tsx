// Escalation policies: who hears about a firing alert, step by step, until someone
// acknowledges it. A rule uses one when it names no channel or team of its own.
import { useState } from 'react';
import { useDeleteResource, useResourceList } from '../../api/resources';
import { useSession } from '../../session/session';
import { Dialog } from '../../ui/dialog';
import { ListTable } from '../../ui/list-table';
import { CreateButton, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import type { Channel } from '../channels/channel-types';
import { PolicyForm } from './policy-form';
import type { EscalationPolicy, EscalationStep, Team } from './policy-types';
import './escalation.css';

function repeatText(repeat: EscalationPolicy['repeat']): string {
  if (repeat === false || repeat === 0) return 'Once';
  if (repeat === true) return 'Up to 10 more rounds';
  return `${repeat} more round${repeat === 1 ? '' : 's'}`;
}

export default function EscalationPoliciesPage() {
  const { canWrite } = useSession();
  const policies = useResourceList<EscalationPolicy>('/escalation-policies');
  const channels = useResourceList<Channel>('/notification-channels');
  const teams = useResourceList<Team>('/teams');
  const remove = useDeleteResource('/escalation-policies');
  const [editing, setEditing] = useState<EscalationPolicy | 'new' | null>(null);
  const choices = { channels: channels.data ?? [], teams: teams.data ?? [] };

  const stepText = (step: EscalationStep, index: number) => {
    const names = [
      ...step.channel_ids.map((id) => choices.channels.find((c) => c.id === id)?.name ?? 'a deleted channel'),
      ...(step.team_ids ?? []).map((id) => `team ${choices.teams.find((t) => t.id === id)?.name ?? 'deleted'}`),
    ];
    const when = step.delay_minutes === 0 ? (index === 0 ? 'At once' : 'Right after') : `After ${step.delay_minutes} min`;
    return `${when}: ${names.join(', ') || 'nobody'}`;
  };

  return (
    <Page
      title="Escalation policies"
      actions={canWrite && <CreateButton onClick={() => setEditing('new')}>Create policy</CreateButton>}
    >
      <QueryState query={policies} what="escalation policies" empty={<>No escalation policy yet. {canWrite ? 'Create one to notify more people the longer an alert stays unacknowledged, then choose it in an alert rule.' : 'A member of the organization can create one.'}</>}>
        {(data) => (
          <ListTable columns={['Name', 'Steps', 'Repeat']} actions={canWrite}>
            {data.map((policy) => (
              <tr key={policy.id}>
                <th scope="row">{policy.name}</th>
                <td>
                  <ol className="policy-steps">
                    {policy.steps.map((step, i) => (
                      <li key={i}>{stepText(step, i)}</li>
                    ))}
                  </ol>
                </td>
                <td>{repeatText(policy.repeat)}</td>
                {canWrite && (
                  <td>
                    <EditDeleteActions name={policy.name} what={`policy "${policy.name}"`} onEdit={() => setEditing(policy)} onDelete={() => remove.mutateAsync(policy.id)} />
                  </td>
                )}
              </tr>
            ))}
          </ListTable>
        )}
      </QueryState>
      <Dialog title={editing === 'new' ? 'Create escalation policy' : `Edit ${editing?.name ?? ''}`} open={editing !== null} onClose={() => setEditing(null)} wide>
        {editing !== null && <PolicyForm policy={editing === 'new' ? undefined : editing} choices={choices} onDone={() => setEditing(null)} />}
      </Dialog>
    </Page>
  );
}
