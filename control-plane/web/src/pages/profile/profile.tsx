// The signed-in person's own name, e-mail and password (a new password needs the current one).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/http';
import { queryKeys } from '../../api/query-keys';
import { useOrg } from '../../session/session';
import { tokenStore } from '../../session/token-store';
import { TextField } from '../../ui/field';
import { formErrors } from '../../ui/form-errors';
import { FormProblems, LoadError, Loading, Page } from '../../ui/page';

interface Profile {
  id: string;
  email: string;
  full_name: string;
  created_at: string;
}

function useProfile() {
  const org = useOrg();
  const client = useQueryClient();
  const key = [...queryKeys.resource(org, '/profile')];
  const profile = useQuery({ queryKey: key, queryFn: () => api.get<Profile>('/profile') });
  const save = useMutation({
    mutationFn: (body: Record<string, string>) => api.put<Profile>('/profile', body),
    onSuccess: (updated) => {
      client.setQueryData(key, updated);
      // The top bar shows the address kept with the session.
      const session = tokenStore.current();
      if (session && session.email !== updated.email) tokenStore.set({ ...session, email: updated.email });
    },
  });
  return { profile, save };
}

export default function ProfilePage() {
  const { profile } = useProfile();
  return (
    <Page title="Profile">
      {profile.isPending ? (
        <Loading what="your profile" />
      ) : profile.isError ? (
        <LoadError error={profile.error} retry={() => profile.refetch()} />
      ) : (
        <>
          <DetailsForm key={profile.data.id} profile={profile.data} />
          <PasswordForm />
        </>
      )}
    </Page>
  );
}

function DetailsForm({ profile }: { profile: Profile }) {
  const { save } = useProfile();
  const [fullName, setFullName] = useState(profile.full_name);
  const [email, setEmail] = useState(profile.email);
  const errors = formErrors(save.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ full_name: fullName, email });
  };

  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="profile-details">
      <h2 id="profile-details">Your details</h2>
      <FormProblems messages={errors.summary(['full_name', 'email'])} />
      <div className="form-grid">
        <TextField label="Name" autoComplete="name" required value={fullName} onChange={(e) => setFullName(e.target.value)} error={errors.field('full_name')} />
        <TextField label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} error={errors.field('email')} />
      </div>
      <div className="actions">
        {save.isSuccess && (
          <span className="muted" role="status">
            Saved.
          </span>
        )}
        <button type="submit" className="primary" disabled={save.isPending}>
          Save
        </button>
      </div>
    </form>
  );
}

function PasswordForm() {
  const { save } = useProfile();
  const [currentPassword, setCurrentPassword] = useState('');
  const [password, setPassword] = useState('');
  const errors = formErrors(save.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      { current_password: currentPassword, password },
      {
        onSuccess: () => {
          setCurrentPassword('');
          setPassword('');
        },
      },
    );
  };

  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="profile-password">
      <h2 id="profile-password">Change password</h2>
      <FormProblems messages={errors.summary(['current_password', 'password'])} />
      <div className="form-grid">
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          required
          value={currentPassword}
          onChange={(e) => setCurrentPassword(e.target.value)}
          error={errors.field('current_password')}
        />
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
      </div>
      <div className="actions">
        {save.isSuccess && (
          <span className="muted" role="status">
            Password changed.
          </span>
        )}
        <button type="submit" className="primary" disabled={save.isPending}>
          Change password
        </button>
      </div>
    </form>
  );
}
