// The second step of a sign-in: a code of the authenticator app, a recovery code or a passkey;
// or, when the organization requires a factor the person lacks, setting up the app first.
import { useState, type FormEvent } from 'react';
import { apiRequest } from '../../api/http';
import type { SignInAnswer } from '../../session/token-store';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { RecoveryCodes } from '../security/recovery-codes';
import type { TotpSetupJson } from '../security/security-types';
import { TotpSetupForm } from '../security/totp-section';
import '../security/security.css';
import { passkeyForSecondStep, secondFactorStep, type MfaRequiredJson } from './sign-in-steps';

interface StepProps {
  challenge: MfaRequiredJson;
  onSignedIn(answer: SignInAnswer): void;
  onStartOver(): void;
}

export function SecondFactorStep(props: StepProps) {
  return (
    <div className="auth-card" role="region" aria-labelledby="second-factor-title">
      <p className="brand">Outpost</p>
      <h1 id="second-factor-title">{props.challenge.mfa_enrollment_required ? 'Set up a second factor' : 'Two-factor sign-in'}</h1>
      {props.challenge.mfa_enrollment_required ? <EnrolStep {...props} /> : <FactorStep {...props} />}
      <p>
        <button type="button" className="link-button" onClick={props.onStartOver}>
          Start over
        </button>
      </p>
    </div>
  );
}

type Way = 'code' | 'recovery_code';

function FactorStep({ challenge, onSignedIn }: StepProps) {
  const has = (method: MfaRequiredJson['methods'][number]) => challenge.methods.includes(method);
  const [way, setWay] = useState<Way>('code');
  const [value, setValue] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const errors = formErrors(error);

  const run = async (factor: () => Promise<Record<string, unknown>>) => {
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await secondFactorStep(challenge.mfa_token, await factor()));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => ({ [way]: value.trim() }));
  };
  const withPasskey = () => void run(async () => ({ passkey: await passkeyForSecondStep(challenge.mfa_token) }));
  const switchTo = (next: Way) => {
    setWay(next);
    setValue('');
    setError(undefined);
  };

  return (
    <>
      <FormProblems messages={errors.summary(['code', 'recovery_code'])} />
      {has('totp') && (
        <form onSubmit={submit} noValidate>
          {way === 'code' ? (
            <TextField label="Authentication code" inputMode="numeric" autoComplete="one-time-code" autoFocus required value={value} onChange={(e) => setValue(e.target.value)} error={errors.field('code')} hint="The six digits your authenticator app shows." />
          ) : (
            <TextField label="Recovery code" autoComplete="off" autoFocus required value={value} onChange={(e) => setValue(e.target.value)} error={errors.field('recovery_code')} hint="One of the codes you saved; each works once." />
          )}
          <button type="submit" className="primary" disabled={busy}>
            Verify
          </button>
        </form>
      )}
      {!has('totp') && <p>Sign in with one of your passkeys.</p>}
      <div className="proof-ways">
        {has('recovery_code') && way === 'code' && (
          <button type="button" className="link-button" onClick={() => switchTo('recovery_code')}>
            Use a recovery code
          </button>
        )}
        {way === 'recovery_code' && (
          <button type="button" className="link-button" onClick={() => switchTo('code')}>
            Use the authenticator app
          </button>
        )}
        {has('passkey') && (
          <button type="button" className={has('totp') ? 'link-button' : 'primary'} disabled={busy} onClick={withPasskey}>
            Use a passkey
          </button>
        )}
      </div>
    </>
  );
}

/** The organization requires a second factor: the app is set up with the token, then the sign-in completes. */
function EnrolStep({ challenge, onSignedIn }: StepProps) {
  const [setup, setSetup] = useState<TotpSetupJson | null>(null);
  const [done, setDone] = useState<{ answer: SignInAnswer; codes: string[] } | null>(null);
  const [error, setError] = useState<unknown>();

  const start = async () => {
    setError(undefined);
    try {
      setSetup((await apiRequest<TotpSetupJson>('POST', '/auth/login/mfa/totp', { body: { mfa_token: challenge.mfa_token }, token: null })).body);
    } catch (err) {
      setError(err);
    }
  };
  const confirm = async (code: string) => {
    const { body } = await apiRequest<SignInAnswer & { recovery_codes: string[] }>('POST', '/auth/login/mfa/totp/confirm', { body: { mfa_token: challenge.mfa_token, code }, token: null });
    setDone({ answer: body, codes: body.recovery_codes });
  };

  if (done) {
    return (
      <>
        <RecoveryCodes codes={done.codes} />
        <button type="button" className="primary" onClick={() => onSignedIn(done.answer)}>
          Continue
        </button>
      </>
    );
  }
  return (
    <>
      <p>Your organization requires a second factor. Set up an authenticator app to finish signing in.</p>
      <FormProblems messages={formErrors(error).summary([])} />
      {setup ? (
        <TotpSetupForm setup={setup} confirm={confirm} />
      ) : (
        <button type="button" className="primary" onClick={() => void start()}>
          Set up authenticator app
        </button>
      )}
    </>
  );
}
