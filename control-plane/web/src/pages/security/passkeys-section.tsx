// Passkeys: named, several per person, each one a second factor after the password and a way
// to sign in without one. Added with the browser's prompt, renamed, removed after proof.
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/http';
import { Dialog } from '../../ui/dialog';
import { TextField } from '../../ui/field';
import { FormActions } from '../../ui/form-actions';
import { formErrors } from '../../ui/form-errors';
import { formatAgo, formatDateTime } from '../../ui/format';
import { ListTable } from '../../ui/list-table';
import { Empty, FormProblems } from '../../ui/page';
import { createPasskey } from './passkey-browser';
import { ProofDialog } from './proof-dialog';
import type { FactorProof, PasskeyJson, SecondFactorsJson } from './security-types';

export function PasskeysSection({ factors, changed }: { factors: SecondFactorsJson; changed(): void }) {
  const [adding, setAdding] = useState(false);
  const [renaming, setRenaming] = useState<PasskeyJson | null>(null);
  const [removing, setRemoving] = useState<PasskeyJson | null>(null);

  return (
    <section className="card" aria-labelledby="passkeys-title">
      <div className="section-header">
        <h2 id="passkeys-title">Passkeys</h2>
        <button type="button" className="primary" onClick={() => setAdding(true)}>
          Add passkey
        </button>
      </div>
      <p className="muted">A passkey on this device or a security key: asked after your password, and also signs you in on its own.</p>
      {factors.passkeys.length === 0 ? (
        <Empty>No passkeys yet.</Empty>
      ) : (
        <ListTable columns={['Name', 'Added', 'Last used', 'Actions']}>
          {factors.passkeys.map((p) => (
            <tr key={p.id}>
              <td>{p.name}</td>
              <td>{formatDateTime(p.created_at)}</td>
              <td title={formatDateTime(p.last_used_at)}>{p.last_used_at ? formatAgo(p.last_used_at) : 'Never'}</td>
              <td>
                <div className="row-actions">
                  <button type="button" aria-label={`Rename passkey ${p.name}`} onClick={() => setRenaming(p)}>
                    Rename
                  </button>
                  <button type="button" className="danger" aria-label={`Remove passkey ${p.name}`} onClick={() => setRemoving(p)}>
                    Remove
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </ListTable>
      )}
      <Dialog title="Add passkey" open={adding} onClose={() => setAdding(false)}>
        {adding && (
          <NameForm
            submitLabel="Create passkey"
            hint="e.g. Work laptop. Your browser then asks where to keep it."
            save={async (name) => {
              const options = await api.post<PublicKeyCredentialCreationOptionsJSON>('/profile/mfa/passkeys/options');
              await api.post<PasskeyJson>('/profile/mfa/passkeys', { name, response: await createPasskey(options) });
            }}
            onCancel={() => setAdding(false)}
            onSaved={() => {
              setAdding(false);
              changed();
            }}
          />
        )}
      </Dialog>
      <Dialog title={`Rename passkey ${renaming?.name ?? ''}`} open={renaming !== null} onClose={() => setRenaming(null)}>
        {renaming && (
          <NameForm
            initial={renaming.name}
            submitLabel="Rename"
            save={(name) => api.put(`/profile/mfa/passkeys/${renaming.id}`, { name })}
            onCancel={() => setRenaming(null)}
            onSaved={() => {
              setRenaming(null);
              changed();
            }}
          />
        )}
      </Dialog>
      <ProofDialog
        title={`Remove passkey ${removing?.name ?? ''}`}
        confirmLabel="Remove passkey"
        open={removing !== null}
        hasTotp={factors.totp.enabled}
        hasPasskey={factors.passkeys.length > 0}
        onClose={() => setRemoving(null)}
        onProof={async (proof: FactorProof) => {
          await api.post(`/profile/mfa/passkeys/${removing!.id}/remove`, proof);
          changed();
        }}
      />
    </section>
  );
}

interface NameFormProps {
  initial?: string;
  submitLabel: string;
  hint?: string;
  save(name: string): Promise<unknown>;
  onCancel(): void;
  onSaved(): void;
}

function NameForm({ initial = '', submitLabel, hint, save, onCancel, onSaved }: NameFormProps) {
  const [name, setName] = useState(initial);
  const send = useMutation({ mutationFn: save, onSuccess: onSaved });
  const errors = formErrors(send.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate(name);
  };
  return (
    <form onSubmit={submit} noValidate>
      <FormProblems messages={errors.summary(['name'])} />
      <TextField label="Passkey name" required value={name} onChange={(e) => setName(e.target.value)} error={errors.field('name')} hint={hint ?? 'e.g. Work laptop, YubiKey'} />
      <FormActions onCancel={onCancel} busy={send.isPending} submitLabel={submitLabel} />
    </form>
  );
}
