// A password page asks for its password once: the right one sets a cookie, and the page loads.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/http';
import { TextField } from '../../ui/field';
import { publicPageKey, unlockPage } from './public-api';

/** A 400 is the wrong password; anything else (too many tries, no connection) says itself. */
const problemOf = (error: Error) => (error instanceof ApiError && error.status === 400 ? 'Wrong password. Try again.' : error.message);

export function PasswordGate({ slug }: { slug: string }) {
  const client = useQueryClient();
  const [password, setPassword] = useState('');
  const unlock = useMutation({
    mutationFn: () => unlockPage(slug, password),
    onSuccess: () => client.invalidateQueries({ queryKey: publicPageKey(slug) }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    unlock.mutate();
  };
  return (
    <section className="public-password" aria-labelledby="public-password-title">
      <h1 id="public-password-title">This status page is protected</h1>
      <p className="muted">Type the password you were given to see it.</p>
      <form onSubmit={submit} noValidate>
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={unlock.isError ? problemOf(unlock.error) : undefined}
          required
          autoFocus
        />
        <button type="submit" className="primary" disabled={unlock.isPending || password === ''}>
          Open the page
        </button>
      </form>
    </section>
  );
}
