import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { useSession } from '../../session/session';
import { tokenStore } from '../../session/token-store';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';

export default function SignInPage() {
  const { signIn } = useSession();
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from ?? '/services';
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const ended = tokenStore.endedBecause();
  const errors = formErrors(error);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await signIn(email, password);
      navigate(from, { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

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
        <p>
          New to Outpost? <Link to="/create-account">Create account</Link>
        </p>
      </form>
    </main>
  );
}
