// The page an invitation mail links to: which organization invites, with which role; then a
// name and a new password, or the password of the account the address already has. Accepting
// signs the person in, in the inviting organization, after their second factor if they have
// one (or the organization requires one).
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { ApiError, apiRequest } from '../../api/http';
import type { AcceptBody, InvitationPreview } from '../invitations/invitation-types';
import { SecondFactorStep } from './second-factor-step';
import { useFinishSignIn, type MfaRequiredJson } from './sign-in-steps';
import type { SignInAnswer } from '../../session/token-store';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { formatDateTime } from '../../ui/format';
import { FormProblems, LoadError, Loading } from '../../ui/page';

export default function AcceptInvitationPage() {
  const token = new URLSearchParams(useLocation().search).get('token') ?? '';
  const preview = useQuery({
    queryKey: ['public', 'invitation', token],
    queryFn: async () => (await apiRequest<InvitationPreview>('GET', '/invitations/preview', { query: { token }, token: null })).body,
    enabled: token !== '',
    retry: false,
    staleTime: Infinity,
  });
  const finish = useFinishSignIn();
  const [challenge, setChallenge] = useState<MfaRequiredJson | null>(null);

  if (challenge && preview.data) {
    const email = preview.data.email;
    return (
      <main className="auth-page">
        <SecondFactorStep challenge={challenge} onSignedIn={(answer) => finish(answer, email)} onStartOver={() => setChallenge(null)} />
      </main>
    );
  }
  return (
    <main className="auth-page">
      <div className="auth-card">
        <p className="brand">Outpost</p>
        <h1>Join an organization</h1>
        {token === '' || preview.isError ? (
          <UnusableLink error={preview.error} />
        ) : preview.isPending ? (
          <Loading what="the invitation" />
        ) : (
          <AcceptForm token={token} invitation={preview.data} onSecondFactor={setChallenge} />
        )}
      </div>
    </main>
  );
}

function UnusableLink({ error }: { error: unknown }) {
  const notFound = !error || (error instanceof ApiError && error.status === 404);
  return (
    <>
      {notFound ? (
        <p className="form-error" role="alert">
          This invitation link does not work: it may have expired, been revoked or been used already. Ask whoever invited you for a new one.
        </p>
      ) : (
        <LoadError error={error} />
      )}
      <p>
        <Link to="/sign-in">Sign in</Link>
      </p>
    </>
  );
}

function AcceptForm({ token, invitation, onSecondFactor }: { token: string; invitation: InvitationPreview; onSecondFactor(challenge: MfaRequiredJson): void }) {
  const finish = useFinishSignIn();
  const [form, setForm] = useState({ full_name: '', password: '' });
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const errors = formErrors(error);
  const existing = invitation.account_exists;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body: AcceptBody = existing ? { token, password: form.password } : { token, password: form.password, full_name: form.full_name };
      const answer = (await apiRequest<SignInAnswer | MfaRequiredJson>('POST', '/auth/invitations/accept', { body, token: null })).body;
      if ('mfa_token' in answer) onSecondFactor(answer);
      else finish(answer, invitation.email);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Accept the invitation">
      <p>
        <strong>{invitation.organization_name}</strong> invites <strong>{invitation.email}</strong> to join as {/^[aeiou]/.test(invitation.role) ? 'an' : 'a'}{' '}
        <strong>{invitation.role}</strong>.
      </p>
      <p className="muted">The invitation is valid until {formatDateTime(invitation.expires_at)}.</p>
      <FormProblems messages={errors.summary(existing ? ['password'] : ['full_name', 'password'])} />
      {existing ? (
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={form.password}
          onChange={(e) => setForm({ ...form, password: e.target.value })}
          error={errors.field('password')}
          hint={`The password of your Outpost account ${invitation.email}.`}
        />
      ) : (
        <>
          <TextField label="Name" autoComplete="name" required value={form.full_name} onChange={(e) => setForm({ ...form, full_name: e.target.value })} error={errors.field('full_name')} />
          <TextField
            label="Password"
            type="password"
            autoComplete="new-password"
            required
            value={form.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
            error={errors.field('password')}
            hint="At least 8 characters."
          />
        </>
      )}
      <button type="submit" className="primary" disabled={busy}>
        {existing ? 'Sign in and join' : 'Create account and join'}
      </button>
      {existing && (
        <p>
          <Link to="/forgot-password">Forgot password?</Link>
        </p>
      )}
    </form>
  );
}
