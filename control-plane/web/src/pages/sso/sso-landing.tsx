// Where the identity provider's sign-in ends: the one-time code of the callback is exchanged
// (once, within a minute) for a session like a password sign-in's, and the person lands on the
// page they started from. The code leaves the address bar at once.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { apiRequest } from '../../api/http';
import { storedSessionOf, tokenStore } from '../../session/token-store';
import { Loading } from '../../ui/page';
import type { SsoSession } from './sso-types';

export default function SsoLandingPage() {
  const code = new URLSearchParams(useLocation().search).get('code') ?? '';
  const navigate = useNavigate();
  const client = useQueryClient();
  const [error, setError] = useState<string>();
  // A code works once: React's development double effects must not spend it twice.
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    window.history.replaceState(window.history.state, '', '/sign-in/sso');
    if (!code) return setError('This address carries no sign-in code.');
    apiRequest<SsoSession>('POST', '/auth/sso/exchange', { body: { code }, token: null }).then(
      ({ body }) => {
        client.clear();
        tokenStore.set(storedSessionOf(body, body.email));
        navigate(body.redirect, { replace: true });
      },
      (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
    );
  }, [code, client, navigate]);

  return (
    <main className="auth-page">
      <div className="auth-card">
        <p className="brand">Outpost</p>
        <h1>Single sign-on</h1>
        {error ? (
          <>
            <p className="form-error" role="alert">
              {error}
            </p>
            <p>
              <Link to="/sign-in">Back to sign-in</Link>
            </p>
          </>
        ) : (
          <Loading what="your session" />
        )}
      </div>
    </main>
  );
}
