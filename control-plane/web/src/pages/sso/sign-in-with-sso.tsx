// Single sign-on on the sign-in page: a work e-mail (its domain finds the organization) or an
// organization's slug leads to that organization's identity provider. A failed sign-in
// comes back here with ?sso_error=, shown until the next attempt.
import { useState, type FormEvent } from 'react';
import { useLocation } from 'react-router';
import { apiRequest } from '../../api/http';
import { TextField } from '../../ui/field';
import type { SsoDiscovery } from './sso-types';
import './sso.css';

export function SignInWithSso() {
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from ?? '/services';
  const returned = new URLSearchParams(location.search).get('sso_error');
  const [who, setWho] = useState('');
  const [error, setError] = useState<string | null>(returned && `Single sign-on failed: ${returned}`);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const value = who.trim();
    if (!value) return setError('Enter your work e-mail or your organization.');
    setBusy(true);
    setError(null);
    try {
      const query = value.includes('@') ? { email: value } : { organization: value.toLowerCase() };
      const { body } = await apiRequest<SsoDiscovery>('GET', '/auth/sso/discover', { query, token: null });
      window.location.assign(`${body.start_url}?redirect=${encodeURIComponent(from)}`);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  };

  return (
    <form className="auth-card sso-sign-in" onSubmit={submit} aria-labelledby="sso-sign-in-title" noValidate>
      <h2 id="sso-sign-in-title">Single sign-on</h2>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <TextField label="Work e-mail or organization" autoComplete="username" value={who} onChange={(e) => setWho(e.target.value)} hint="Your organization's slug also works, e.g. acme." />
      <button type="submit" disabled={busy}>
        {busy ? 'Opening your identity provider…' : 'Continue with SSO'}
      </button>
    </form>
  );
}
