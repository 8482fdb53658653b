// Teams: named groups of members that alert rules and escalation steps notify by e-mail.
// Everyone reads them; admins and owners create, edit and delete.
import { useState, type FormEvent } from 'react';
import { useDeleteResource, useResourceList, useSaveResource } from '../../api/resources';
import type { Member } from '../../api/types';
import { useSession } from '../../session/session';
import { Dialog } from '../../ui/dialog';
import { CheckboxField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { ListTable } from '../../ui/list-table';
import { CreateButton, FormProblems, LoadError, Loading, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { EditDeleteActions } from '../../ui/row-actions';
import './teams.css';
import { FormActions } from '../../ui/form-actions';

interface Team {
  id: string;
  name: string;
  member_ids: string[];
  members: { user_id: string; email: string; full_name: string }[];
}

type Editing = { team?: Team } | null;

export default function TeamsPage() {
  const { canManage } = useSession();
  const teams = useResourceList<Team>('/teams');
  const remove = useDeleteResource('/teams');
  const [editing, setEditing] = useState<Editing>(null);

  return (
    <Page
      title="Teams"
      actions={canManage && <CreateButton onClick={() => setEditing({})}>Create team</CreateButton>}
    >
      <p className="muted">Alert rules and escalation steps can e-mail every member of a team.</p>
      <QueryState query={teams} what="teams" empty="No teams yet.">
        {(data) => (
          <ListTable columns={['Name', 'Members']} actions={canManage}>
            {data.map((team) => (
              <tr key={team.id}>
                <td>{team.name}</td>
                <td>{team.members.length === 0 ? <span className="muted">nobody</span> : team.members.map((m) => m.full_name || m.email).join(', ')}</td>
                {canManage && (
                  <td>
                    <EditDeleteActions name={`team ${team.name}`} what={`team "${team.name}"`} onEdit={() => setEditing({ team })} onDelete={() => remove.mutateAsync(team.id)} />
                  </td>
                )}
              </tr>
            ))}
          </ListTable>
        )}
      </QueryState>
      <Dialog title={editing?.team ? `Edit team ${editing.team.name}` : 'Create team'} open={editing !== null} onClose={() => setEditing(null)}>
        {editing && <TeamForm key={editing.team?.id ?? 'new'} team={editing.team} onDone={() => setEditing(null)} />}
      </Dialog>
    </Page>
  );
}

function TeamForm({ team, onDone }: { team?: Team; onDone(): void }) {
  const save = useSaveResource<Team>('/teams');
  const members = useResourceList<Member>('/members');
  const [name, setName] = useState(team?.name ?? '');
  const [memberIds, setMemberIds] = useState<string[]>(team?.member_ids ?? []);
  const errors = formErrors(save.error);

  const toggle = (id: string, on: boolean) => setMemberIds((ids) => (on ? [...ids, id] : ids.filter((i) => i !== id)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ id: team?.id, body: { name, member_ids: memberIds } }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['name', 'member_ids'])} />
      <TextField label="Name" required value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} />
      <fieldset>
        <legend>Members</legend>
        {errors.field('member_ids') && <p className="field-error">{errors.field('member_ids')}</p>}
        {members.isPending ? (
          <Loading what="members" />
        ) : members.isError ? (
          <LoadError error={members.error} retry={() => members.refetch()} />
        ) : (
          <div className="team-members">
            {members.data.map((m) => (
              <CheckboxField key={m.user_id} label={`${m.full_name} (${m.email})`} checked={memberIds.includes(m.user_id)} onChange={(e) => toggle(m.user_id, e.target.checked)} />
            ))}
          </div>
        )}
      </fieldset>
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel={team ? 'Save' : 'Create'} />
    </form>
  );
}
