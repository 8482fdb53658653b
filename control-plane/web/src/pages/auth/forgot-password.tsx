// Asks for a password reset link by mail. The answer is the same whether or not an account has
// the address, so the page says what happens if one does.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { apiRequest } from '../../api/http';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';

export default function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [answer, setAnswer] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const errors = formErrors(error);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      setAnswer((await apiRequest<{ message: string }>('POST', '/auth/password-reset', { body: { email }, token: null })).body.message);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="auth-page">
      <form className="auth-card" onSubmit={submit} aria-labelledby="forgot-title" noValidate>
        <p className="brand">Outpost</p>
        <h1 id="forgot-title">Reset your password</h1>
        {answer ? (
          <p className="notice" role="status">
            {answer}
          </p>
        ) : (
          <>
            <p className="muted">Enter the e-mail address of your account: we mail you a link to choose a new password.</p>
            <FormProblems messages={errors.summary(['email'])} />
            <TextField label="Email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} error={errors.field('email')} />
            <button type="submit" className="primary" disabled={busy}>
              Send reset link
            </button>
          </>
        )}
        <p>
          <Link to="/sign-in">Back to sign in</Link>
        </p>
      </form>
    </main>
  );
}
