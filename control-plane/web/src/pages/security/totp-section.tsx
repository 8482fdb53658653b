// The authenticator app (TOTP): set up with the QR code or the secret, confirmed by a first
// code, which brings the recovery codes; once on, new recovery codes or turning it off, each
// after proof that it is you.
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/http';
import { CopyButton } from '../../ui/copy-button';
import { Dialog } from '../../ui/dialog';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { ProofDialog } from './proof-dialog';
import { RecoveryCodes } from './recovery-codes';
import type { FactorProof, RecoveryCodesJson, SecondFactorsJson, TotpSetupJson } from './security-types';

export function TotpSection({ factors, changed }: { factors: SecondFactorsJson; changed(): void }) {
  const [setup, setSetup] = useState<TotpSetupJson | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [asking, setAsking] = useState<'disable' | 'regenerate' | null>(null);
  const start = useMutation({ mutationFn: () => api.post<TotpSetupJson>('/profile/mfa/totp'), onSuccess: setSetup });
  const enabled = factors.totp.enabled;

  const prove = async (proof: FactorProof) => {
    if (asking === 'disable') await api.post('/profile/mfa/totp/disable', proof);
    else setCodes((await api.post<RecoveryCodesJson>('/profile/mfa/recovery-codes', proof)).recovery_codes);
    changed();
  };

  return (
    <section className="card" aria-labelledby="totp-title">
      <div className="section-header">
        <h2 id="totp-title">Authenticator app</h2>
        <span className={`status ${enabled ? 'status-green' : 'status-pending'}`}>{enabled ? 'On' : 'Off'}</span>
      </div>
      <p className="muted">A six-digit code from an app such as 1Password, Google Authenticator or Aegis, asked after your password.</p>
      {enabled ? (
        <>
          <p>
            {factors.recovery_codes_left} of 10 recovery codes left.
          </p>
          <div className="actions">
            <button type="button" onClick={() => setAsking('regenerate')}>
              New recovery codes
            </button>
            <button type="button" className="danger" onClick={() => setAsking('disable')}>
              Turn off authenticator app
            </button>
          </div>
        </>
      ) : (
        <>
          {start.error && <FormProblems messages={[start.error.message]} />}
          <div className="actions">
            <button type="button" className="primary" disabled={start.isPending} onClick={() => start.mutate()}>
              Set up authenticator app
            </button>
          </div>
        </>
      )}
      <Dialog title="Set up authenticator app" open={setup !== null} onClose={() => setSetup(null)} wide>
        {setup && (
          <TotpSetupForm
            setup={setup}
            confirm={async (code) => {
              const { recovery_codes } = await api.post<RecoveryCodesJson>('/profile/mfa/totp/confirm', { code });
              setSetup(null);
              setCodes(recovery_codes);
              changed();
            }}
          />
        )}
      </Dialog>
      <Dialog title="Recovery codes" open={codes !== null} onClose={() => setCodes(null)}>
        {codes && (
          <>
            <RecoveryCodes codes={codes} />
            <div className="actions">
              <button type="button" className="primary" onClick={() => setCodes(null)}>
                Done
              </button>
            </div>
          </>
        )}
      </Dialog>
      <ProofDialog
        title={asking === 'disable' ? 'Turn off authenticator app' : 'New recovery codes'}
        confirmLabel={asking === 'disable' ? 'Turn off' : 'Replace recovery codes'}
        open={asking !== null}
        hasTotp={enabled}
        hasPasskey={factors.passkeys.length > 0}
        onClose={() => setAsking(null)}
        onProof={prove}
      />
    </section>
  );
}

/** The QR code and secret of a set-up, and the first code, which `confirm` sends. */
export function TotpSetupForm({ setup, confirm }: { setup: TotpSetupJson; confirm(code: string): Promise<void> }) {
  const [code, setCode] = useState('');
  const send = useMutation({ mutationFn: confirm });
  const errors = formErrors(send.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate(code);
  };
  return (
    <form onSubmit={submit} noValidate className="totp-setup">
      <p>Scan the QR code with your authenticator app, or type the secret key into it. Then enter the code it shows.</p>
      <img className="totp-qr" src={setup.qr_code} alt="QR code for the authenticator app" width={200} height={200} />
      <TextField label="Secret key" readOnly value={setup.secret} onFocus={(e) => e.target.select()} hint="Shown only now." />
      <CopyButton text={setup.secret} label="Copy secret key" />
      <FormProblems messages={errors.summary(['code'])} />
      <TextField label="Code from the app" inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} error={errors.field('code')} />
      <div className="actions">
        <button type="submit" className="primary" disabled={send.isPending}>
          Turn on
        </button>
      </div>
    </form>
  );
}
