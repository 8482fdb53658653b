// The browser's side of passkeys: the WebAuthn prompts through @simplewebauthn/browser, loaded
// only when a passkey is used so that the first page load stays small. A prompt the person
// closed or that timed out says so in words, not as a DOMException.
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { api, apiRequest } from '../../api/http';

function plainError(err: unknown): Error {
  const name = err instanceof Error ? err.name : '';
  if (name === 'NotAllowedError' || name === 'AbortError') return new Error('The passkey prompt was closed or timed out. Try again.');
  if (name === 'InvalidStateError') return new Error('This device already holds a passkey for your account.');
  if (name === 'SecurityError') return new Error('Passkeys need the dashboard opened by its host name (https, or http://localhost).');
  return err instanceof Error ? err : new Error(String(err));
}

/** Asks the browser for a new passkey with options from the API. */
export async function createPasskey(optionsJSON: PublicKeyCredentialCreationOptionsJSON): Promise<RegistrationResponseJSON> {
  const { startRegistration } = await import('@simplewebauthn/browser');
  try {
    return await startRegistration({ optionsJSON });
  } catch (err) {
    throw plainError(err);
  }
}

/** Asks the browser to sign the options' challenge with a passkey. */
export async function signWithPasskey(optionsJSON: PublicKeyCredentialRequestOptionsJSON): Promise<AuthenticationResponseJSON> {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  try {
    return await startAuthentication({ optionsJSON });
  } catch (err) {
    throw plainError(err);
  }
}

/** A passkey assertion proving it is the signed-in person (removing a factor). */
export async function passkeyProof(): Promise<AuthenticationResponseJSON> {
  return signWithPasskey(await api.post<PublicKeyCredentialRequestOptionsJSON>('/profile/mfa/proof-options'));
}

/** Options and assertion for a public route (sign-in), without the session's token. */
export async function publicPasskeyAssertion(path: string, body: unknown = {}): Promise<AuthenticationResponseJSON> {
  const { body: options } = await apiRequest<PublicKeyCredentialRequestOptionsJSON>('POST', path, { body, token: null });
  return signWithPasskey(options);
}
