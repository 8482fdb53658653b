import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useSession } from '../../session/session';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems } from '../../ui/page';

export default function CreateAccountPage() {
  const { createAccount } = useSession();
  const navigate = useNavigate();
  const [form, setForm] = useState({ full_name: '', email: '', password: '' });
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const errors = formErrors(error);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await createAccount(form);
      navigate('/services', { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="auth-page">
      <form className="auth-card" onSubmit={submit} aria-labelledby="create-account-title" noValidate>
        <p className="brand">Outpost</p>
        <h1 id="create-account-title">Create account</h1>
        <FormProblems messages={errors.summary(['full_name', 'email', 'password'])} />
        <TextField label="Name" autoComplete="name" required value={form.full_name} onChange={set('full_name')} error={errors.field('full_name')} />
        <TextField label="Email" type="email" autoComplete="email" required value={form.email} onChange={set('email')} error={errors.field('email')} />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          value={form.password}
          onChange={set('password')}
          error={errors.field('password')}
          hint="At least 8 characters."
        />
        <button type="submit" className="primary" disabled={busy}>
          Create account
        </button>
        <p>
          Already have an account? <Link to="/sign-in">Sign in</Link>
        </p>
      </form>
    </main>
  );
}
