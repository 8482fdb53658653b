// The page a password reset mail links to: a new password, typed twice. Setting it signs the
// account out everywhere, so the person signs in again with it.
import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { apiRequest, ApiError } from '../../api/http';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';

export default function ResetPasswordPage() {
  const token = new URLSearchParams(useLocation().search).get('token') ?? '';
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const errors = formErrors(error);
  const unusable = token === '' || (error instanceof ApiError && error.status === 404);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setMismatch(password !== repeated);
    if (password !== repeated) return;
    setBusy(true);
    setError(undefined);
    try {
      await apiRequest('POST', '/auth/password-reset/complete', { body: { token, password }, token: null });
      setDone(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="auth-page">
      <form className="auth-card" onSubmit={submit} aria-labelledby="reset-title" noValidate>
        <p className="brand">Outpost</p>
        <h1 id="reset-title">Choose a new password</h1>
        {done ? (
          <>
            <p className="notice" role="status">
              Your password is changed, and every session of your account has ended. Sign in with the new password.
            </p>
            <p>
              <Link to="/sign-in">Sign in</Link>
            </p>
          </>
        ) : unusable ? (
          <>
            <p className="form-error" role="alert">
              This reset link does not work: it may have expired (links work for one hour) or been used already.
            </p>
            <p>
              <Link to="/forgot-password">Ask for a new link</Link>
            </p>
          </>
        ) : (
          <>
            <FormProblems messages={errors.summary(['password'])} />
            <TextField
              label="New password"
              type="password"
              autoComplete="new-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              error={errors.field('password')}
              hint="At least 8 characters."
            />
            <TextField
              label="Repeat the new password"
              type="password"
              autoComplete="new-password"
              required
              value={repeated}
              onChange={(e) => setRepeated(e.target.value)}
              error={mismatch ? 'The two passwords differ.' : undefined}
            />
            <button type="submit" className="primary" disabled={busy}>
              Set new password
            </button>
          </>
        )}
      </form>
    </main>
  );
}
