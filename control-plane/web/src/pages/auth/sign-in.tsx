// Sign-in: e-mail and password, then a second factor when the account has one (or its
// organization requires one); or a passkey alone; or single sign-on. The steps' requests are
// in sign-in-steps.ts, the second step's form in second-factor-step.tsx.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { tokenStore } from '../../session/token-store';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';
import { SignInWithSso } from '../sso/sign-in-with-sso';
import { SecondFactorStep } from './second-factor-step';
import { passkeySignIn, passwordStep, useFinishSignIn, type MfaRequiredJson } from './sign-in-steps';

export default function SignInPage() {
  const finish = useFinishSignIn();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<MfaRequiredJson | null>(null);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const ended = tokenStore.endedBecause();
  const errors = formErrors(error);

  const attempt = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void attempt(async () => {
      const answer = await passwordStep(email, password);
      if ('mfa_required' in answer) setChallenge(answer);
      else finish(answer, email);
    });
  };
  const withPasskey = () =>
    void attempt(async () => {
      const { answer, email: address } = await passkeySignIn();
      finish(answer, address);
    });

  if (challenge) {
    return (
      <main className="auth-page">
        <SecondFactorStep
          challenge={challenge}
          onSignedIn={(answer) => finish(answer, email)}
          onStartOver={() => {
            setChallenge(null);
            setPassword('');
          }}
        />
      </main>
    );
  }
  return (
    <main className="auth-page">
      <form className="auth-card" onSubmit={submit} aria-labelledby="sign-in-title" noValidate>
        <p className="brand">Outpost</p>
        <h1 id="sign-in-title">Sign in</h1>
        {ended && !error && (
          <p className="notice" role="status">
            {ended}
          </p>
        )}
        <FormProblems messages={errors.summary(['email', 'password'])} />
        <TextField label="Email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} error={errors.field('email')} />
        <TextField label="Password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} error={errors.field('password')} />
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
        <p><Link to="/forgot-password">Forgot password?</Link></p>
        <p>
          New to Outpost? <Link to="/create-account">Create account</Link>
        </p>
      </form>
      {/* Neither heading nor button says "Sign in": that name is the password form's. */}
      <section className="auth-card passkey-sign-in" aria-labelledby="passkey-sign-in-title">
        <h2 id="passkey-sign-in-title">Passkey</h2>
        <p className="muted">Sign in with a passkey instead: no password, your device or security key confirms it is you.</p>
        <button type="button" disabled={busy} onClick={withPasskey}>
          Use a passkey
        </button>
      </section>
      <SignInWithSso />
    </main>
  );
}
