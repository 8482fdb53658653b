// The organization's members and their roles. Admins and owners add people by e-mail, change
// roles and remove members, each only up to their own role.
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { queryKeys } from '../../api/query-keys';
import { useDeleteResource, useResourceList, useSaveResource } from '../../api/resources';
import type { Member, Role } from '../../api/types';
import { useOrg, useSession } from '../../session/session';
import { DeleteButton } from '../../ui/delete-button';
import { Dialog } from '../../ui/dialog';
import { SelectField, TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { CreateButton, FormProblems, Page } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { assignableRoles, outranks, ROLE_HELP } from './roles';
import './members.css';
import { FormActions } from '../../ui/form-actions';
import { Invitations } from '../invitations/invitations-section';

export default function MembersPage() {
  const { canManage } = useSession();
  const members = useResourceList<Member>('/members');
  const [adding, setAdding] = useState(false);

  return (
    <Page
      title="Members"
      actions={canManage && <CreateButton onClick={() => setAdding(true)}>Add member</CreateButton>}
    >
      <QueryState query={members} what="members" empty="No members.">
        {(data) => (
          <ListTable columns={['Name', 'Email', 'Role', 'Joined']} actions={canManage}>
            {data.map((member) => (
              <MemberRow key={member.user_id} member={member} />
            ))}
          </ListTable>
        )}
      </QueryState>
      <Dialog title="Add member" open={adding} onClose={() => setAdding(false)}>
        {adding && <AddMemberForm onDone={() => setAdding(false)} />}
      </Dialog>
      <Invitations />
    </Page>
  );
}

function MemberRow({ member }: { member: Member }) {
  const { canManage, role: ownRole, session } = useSession();
  const org = useOrg();
  const client = useQueryClient();
  const save = useSaveResource<Member>('/members');
  const remove = useDeleteResource('/members');
  const mayChange = canManage && outranks(ownRole, member.role);
  const name = member.full_name || member.email;

  const changeRole = (role: Role) =>
    save.mutate(
      { id: member.user_id, body: { role } },
      {
        onSuccess: () => {
          // A change of one's own role changes what this session may do.
          if (member.user_id !== session?.userId) return;
          void client.invalidateQueries({ queryKey: queryKeys.organization(org) });
          void client.invalidateQueries({ queryKey: queryKeys.organizations(org) });
        },
      },
    );

  return (
    <tr>
      <td>{member.full_name}</td>
      <td>{member.email}</td>
      <td className="member-role">
        {mayChange ? (
          <>
            <select aria-label={`Role of ${name}`} value={member.role} disabled={save.isPending} onChange={(e) => changeRole(e.target.value as Role)}>
              {assignableRoles(ownRole).map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            {save.error && (
              <p className="field-error" role="alert">
                {save.error.message}
              </p>
            )}
          </>
        ) : (
          member.role
        )}
      </td>
      <td>{formatDateTime(member.joined_at)}</td>
      {canManage && <td>{mayChange && <DeleteButton label="Remove" what={`${name} from the organization`} onDelete={() => remove.mutateAsync(member.user_id)} />}</td>}
    </tr>
  );
}

function AddMemberForm({ onDone }: { onDone(): void }) {
  const { role: ownRole } = useSession();
  const save = useSaveResource<Member>('/members');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const errors = formErrors(save.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ body: { email, role } }, { onSuccess: onDone });
  };

  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['email', 'role'])} />
      <TextField label="Email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} error={errors.field('email')} hint="They must have created an account first." />
      <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)} error={errors.field('role')} hint={ROLE_HELP[role]}>
        {assignableRoles(ownRole).map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </SelectField>
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel="Add member" />
    </form>
  );
}
