// The requests of a sign-in, whichever way it goes: a password (which may answer that a
// second factor is needed), the second factor, a passkey alone. A finished sign-in is stored
// as the session and the page goes where the person was headed.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { apiRequest } from '../../api/http';
import { storedSessionOf, tokenStore, type SignInAnswer } from '../../session/token-store';
import type { MfaRequiredJson } from '../../../../src/features/second-factors/second-factors.schema';
import { publicPasskeyAssertion } from '../security/passkey-browser';

export type { MfaRequiredJson };

const post = async <T>(path: string, body: unknown) => (await apiRequest<T>('POST', path, { body, token: null })).body;

/** The password step: a session, or the second factor it needs. */
export const passwordStep = (email: string, password: string) => post<SignInAnswer | MfaRequiredJson>('/auth/login', { email, password });

/** A second factor for the mfa_token: a TOTP `code`, a `recovery_code`, or a `passkey` assertion. */
export const secondFactorStep = (mfaToken: string, factor: Record<string, unknown>) => post<SignInAnswer>('/auth/login/mfa', { mfa_token: mfaToken, ...factor });

/** The passkey assertion for the second step (one of the token's user's passkeys). */
export const passkeyForSecondStep = (mfaToken: string) => publicPasskeyAssertion('/auth/login/mfa/passkey-options', { mfa_token: mfaToken });

/** Signs in with a passkey alone; the e-mail (shown in the top bar) is read with the new token. */
export async function passkeySignIn(): Promise<{ answer: SignInAnswer; email: string }> {
  const answer = await post<SignInAnswer>('/auth/passkey/verify', { passkey: await publicPasskeyAssertion('/auth/passkey/options') });
  const { body } = await apiRequest<{ email: string }>('GET', '/profile', { token: answer.token });
  return { answer, email: body.email };
}

/** Stores a finished sign-in and goes on to the page the person was headed for. */
export function useFinishSignIn(): (answer: SignInAnswer, email: string) => void {
  const client = useQueryClient();
  const navigate = useNavigate();
  const from = (useLocation().state as { from?: string } | null)?.from ?? '/services';
  return useCallback(
    (answer, email) => {
      client.clear();
      tokenStore.set(storedSessionOf(answer, email));
      navigate(from, { replace: true });
    },
    [client, navigate, from],
  );
}
