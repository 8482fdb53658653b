// "Is it really you?" before a factor goes or the recovery codes change: the password, a code
// of the authenticator app, or a passkey. The action itself is the caller's, given the proof.
import { useState, type FormEvent } from 'react';
import { Dialog } from '../../ui/dialog';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { passkeyProof } from './passkey-browser';
import type { FactorProof } from './security-types';

type Way = 'password' | 'code' | 'passkey';

interface ProofDialogProps {
  title: string;
  /** What the confirm button says, e.g. "Turn off". */
  confirmLabel: string;
  open: boolean;
  /** Which other ways the person has. */
  hasTotp: boolean;
  hasPasskey: boolean;
  onClose(): void;
  /** Runs the action with the proof; a rejection is shown in the dialog. */
  onProof(proof: FactorProof): Promise<unknown>;
}

export function ProofDialog(props: ProofDialogProps) {
  return (
    <Dialog title={props.title} open={props.open} onClose={props.onClose}>
      {props.open && <ProofForm {...props} />}
    </Dialog>
  );
}

function ProofForm({ confirmLabel, hasTotp, hasPasskey, onClose, onProof }: ProofDialogProps) {
  const [way, setWay] = useState<Way>('password');
  const [value, setValue] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const errors = formErrors(error);

  const run = async (proof: () => Promise<FactorProof>) => {
    setBusy(true);
    setError(undefined);
    try {
      await onProof(await proof());
      onClose();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => (way === 'password' ? { password: value } : way === 'code' ? { code: value } : { passkey: await passkeyProof() }));
  };
  const switchTo = (next: Way) => {
    setWay(next);
    setValue('');
    setError(undefined);
  };

  return (
    <form onSubmit={submit} noValidate>
      <p>Confirm it is you.</p>
      <FormProblems messages={errors.summary(['password', 'code'])} />
      {way === 'password' && (
        <TextField label="Password" type="password" autoComplete="current-password" required value={value} onChange={(e) => setValue(e.target.value)} error={errors.field('password')} />
      )}
      {way === 'code' && (
        <TextField label="Code from the app" inputMode="numeric" autoComplete="one-time-code" required value={value} onChange={(e) => setValue(e.target.value)} error={errors.field('code')} />
      )}
      {way === 'passkey' && <p className="muted">Your browser will ask for one of your passkeys.</p>}
      <div className="proof-ways">
        {way !== 'password' && (
          <button type="button" className="link-button" onClick={() => switchTo('password')}>
            Use your password
          </button>
        )}
        {hasTotp && way !== 'code' && (
          <button type="button" className="link-button" onClick={() => switchTo('code')}>
            Use a code from the app
          </button>
        )}
        {hasPasskey && way !== 'passkey' && (
          <button type="button" className="link-button" onClick={() => switchTo('passkey')}>
            Use a passkey
          </button>
        )}
      </div>
      <div className="actions">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="danger" disabled={busy}>
          {confirmLabel}
        </button>
      </div>
    </form>
  );
}
