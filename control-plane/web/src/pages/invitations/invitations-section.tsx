// The invitations of the Members page (admins and owners): invite someone by e-mail with a role
// up to one's own, see every invitation's state, revoke one. When the mail could not go out,
// the link is shown to copy and pass on; the server keeps only its digest, so an older
// invitation offers a new link instead.
import { useState, type FormEvent } from 'react';
import { useDeleteResource, useResourceList, useSaveResource } from '../../api/resources';
import type { Role } from '../../api/types';
import { useSession } from '../../session/session';
import { CopyButton } from '../../ui/copy-button';
import { DeleteButton } from '../../ui/delete-button';
import { Dialog } from '../../ui/dialog';
import { SelectField, TextField } from '../../ui/field';
import { FormActions } from '../../ui/form-actions';
import { formErrors } from '../../ui/form-errors';
import { formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { FormProblems } from '../../ui/page';
import { QueryState } from '../../ui/query-state';
import { assignableRoles, outranks, ROLE_HELP } from '../members/roles';
import { INVITATIONS_PATH, type CreatedInvitation, type Invitation, type InvitationBody } from './invitation-types';
import './invitations.css';

const STATUS_TEXT: Record<Invitation['status'], string> = { pending: 'Pending', accepted: 'Accepted', revoked: 'Revoked', expired: 'Expired' };

export function Invitations() {
  const { canManage } = useSession();
  const invitations = useResourceList<Invitation>(INVITATIONS_PATH, undefined, { enabled: canManage });
  const [inviting, setInviting] = useState(false);
  const [sent, setSent] = useState<string>();
  // Links of invitations whose mail did not go out, made in this visit: shown to copy.
  const [links, setLinks] = useState<Record<string, string>>({});
  const keepLink = (created: CreatedInvitation) => {
    if (created.accept_url) setLinks((all) => ({ ...all, [created.id]: created.accept_url! }));
    setSent(created.email_sent ? `Invitation mailed to ${created.email}.` : undefined);
  };
  if (!canManage) return null;

  return (
    <section className="card invitations" aria-labelledby="invitations-title">
      <header className="section-header">
        <h2 id="invitations-title">Invitations</h2>
        <button type="button" className="primary" onClick={() => setInviting(true)}>
          Invite
        </button>
      </header>
      {sent && (
        <p className="muted" role="status">
          {sent}
        </p>
      )}
      <QueryState query={invitations} what="invitations" empty="No invitations yet. Invite someone by e-mail: they choose a password, or use their account, and join with the role you give.">
        {(data) => (
          <ListTable columns={['Email', 'Role', 'Status', 'Invited by', 'Sent', 'Expires']} actions>
            {data.map((invitation) => (
              <InvitationRow key={invitation.id} invitation={invitation} link={links[invitation.id]} onNewLink={keepLink} />
            ))}
          </ListTable>
        )}
      </QueryState>
      <Dialog title="Invite someone" open={inviting} onClose={() => setInviting(false)}>
        {inviting && <InviteForm onCreated={keepLink} onDone={() => setInviting(false)} />}
      </Dialog>
    </section>
  );
}

function InvitationRow({ invitation, link, onNewLink }: { invitation: Invitation; link: string | undefined; onNewLink(created: CreatedInvitation): void }) {
  const { role: ownRole } = useSession();
  const remove = useDeleteResource(INVITATIONS_PATH);
  const again = useSaveResource<CreatedInvitation>(INVITATIONS_PATH);
  const pending = invitation.status === 'pending';
  const unsent = pending && !invitation.email_sent;
  const againLabel = invitation.status === 'expired' ? 'Invite again' : 'New link';
  // Invitations of a role above one's own are left to those who hold it (the API refuses them too).
  const mayChange = outranks(ownRole, invitation.role);
  return (
    <tr>
      <td>{invitation.email}</td>
      <td>{invitation.role}</td>
      <td>
        <span className={`invitation-status invitation-${invitation.status}`}>{STATUS_TEXT[invitation.status]}</span>
        {unsent && <span className="muted"> (mail not sent)</span>}
      </td>
      <td>{invitation.invited_by ? invitation.invited_by.full_name || invitation.invited_by.email : '—'}</td>
      <td>{formatDateTime(invitation.created_at)}</td>
      <td>{formatDateTime(invitation.expires_at)}</td>
      <td>
        <div className="row-actions">
          {unsent && link && <CopyButton text={link} label={`Copy link for ${invitation.email}`} />}
          {mayChange && (invitation.status === 'expired' || (unsent && !link)) && (
            <button
              type="button"
              aria-label={`${againLabel} for ${invitation.email}`}
              disabled={again.isPending}
              onClick={() => again.mutate({ body: { email: invitation.email, role: invitation.role } }, { onSuccess: onNewLink })}
            >
              {againLabel}
            </button>
          )}
          {pending && mayChange && <DeleteButton label="Revoke" what={`the invitation of ${invitation.email}`} onDelete={() => remove.mutateAsync(invitation.id)} />}
        </div>
        {again.error && (
          <p className="field-error" role="alert">
            {again.error.message}
          </p>
        )}
      </td>
    </tr>
  );
}

function InviteForm({ onCreated, onDone }: { onCreated(created: CreatedInvitation): void; onDone(): void }) {
  const { role: ownRole } = useSession();
  const save = useSaveResource<CreatedInvitation>(INVITATIONS_PATH);
  const [form, setForm] = useState<InvitationBody>({ email: '', role: 'member' });
  const [unsent, setUnsent] = useState<CreatedInvitation>();
  const errors = formErrors(save.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      { body: form },
      {
        onSuccess: (created) => {
          onCreated(created);
          if (created.email_sent) onDone();
          else setUnsent(created);
        },
      },
    );
  };

  if (unsent?.accept_url) return <HandOverLink invitation={unsent} url={unsent.accept_url} onDone={onDone} />;
  const role = form.role ?? 'member';
  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['email', 'role'])} />
      <TextField label="Email" type="email" required value={form.email} onChange={(e) => setForm({ ...form, email: e.target.value })} error={errors.field('email')} hint="They get a link by mail, valid 7 days." />
      <SelectField label="Role" value={role} onChange={(e) => setForm({ ...form, role: e.target.value as Role })} error={errors.field('role')} hint={ROLE_HELP[role]}>
        {assignableRoles(ownRole).map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </SelectField>
      <FormActions onCancel={onDone} busy={save.isPending} submitLabel="Send invitation" />
    </form>
  );
}

function HandOverLink({ invitation, url, onDone }: { invitation: CreatedInvitation; url: string; onDone(): void }) {
  return (
    <div className="hand-over">
      <p className="notice" role="status">
        The invitation stands, but no mail went out{invitation.email_error ? ` (${invitation.email_error})` : ''}. Pass this link on to {invitation.email}; it works once, until{' '}
        {formatDateTime(invitation.expires_at)}.
      </p>
      <TextField label="Invitation link" readOnly value={url} onFocus={(e) => e.target.select()} />
      <div className="actions">
        <CopyButton text={url} label="Copy link" />
        <button type="button" className="primary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
