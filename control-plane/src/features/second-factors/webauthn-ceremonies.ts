// The two WebAuthn ceremonies over @simplewebauthn/server: registering a passkey and asserting
// one. Each starts with options holding a fresh challenge, kept server-side (sha256) for a few
// minutes and taken by the answer that names it, so a challenge works once and only for the
// purpose and user it was made for.
import { createHash, randomUUID } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { FactorsRepository, Passkey } from './factors.repository.js';
import type { RelyingParty } from './relying-party.js';
import type { PasskeyAssertion, PasskeyAttestation } from './second-factors.schema.js';
import type { ChallengePurpose, SignInStepsRepository, StoredChallenge } from './sign-in-steps.repository.js';

const RP_NAME = 'Outpost';
/** How long the browser may take (WebAuthn's timeout), and the challenge lives a little longer. */
const CEREMONY_TIMEOUT_MS = 120_000;
const CHALLENGE_LIFETIME_MS = CEREMONY_TIMEOUT_MS + 30_000;

/**
 * Loaded at the first ceremony: the library and its CBOR and COSE code keep some 19 MB resident,
 * which an installation that never registers a passkey should not pay (P9, issue 44).
 */
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (library ??= import('@simplewebauthn/server'));

export type NewPasskey = Omit<Passkey, 'createdAt' | 'lastUsedAt'>;

export interface WebAuthnCeremonies {
  registrationOptions(user: { id: string; email: string }, rp: RelyingParty): Promise<PublicKeyCredentialCreationOptionsJSON>;
  /** The verified credential, ready to store; VALIDATION_FAILED when the answer does not hold. */
  verifyRegistration(userId: string, name: string, answer: PasskeyAttestation): Promise<NewPasskey>;
  /** Options for an assertion; with a user, only that user's passkeys are offered. */
  assertionOptions(purpose: Exclude<ChallengePurpose, 'register'>, rp: RelyingParty, userId?: string): Promise<PublicKeyCredentialRequestOptionsJSON>;
  /** The passkey that signed; UNAUTHENTICATED when the assertion does not hold (or is another user's). */
  verifyAssertion(purpose: Exclude<ChallengePurpose, 'register'>, answer: PasskeyAssertion, userId?: string): Promise<Passkey>;
}

const digest = (challenge: string) => createHash('sha256').update(challenge).digest('base64url');

/** The challenge the browser signed, read from clientDataJSON; null when it cannot be read. */
function signedChallenge(clientDataJSON: string): string | null {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' ? data.challenge : null;
  } catch {
    return null;
  }
}

export function createWebAuthnCeremonies(factors: FactorsRepository, steps: SignInStepsRepository, clock: Clock): WebAuthnCeremonies {
  const remember = async (challenge: string, purpose: ChallengePurpose, rp: RelyingParty, userId: string | null) => {
    const now = clock.now();
    await steps.insertChallenge(digest(challenge), { purpose, userId, rpId: rp.id, origin: rp.origin, expiresAt: new Date(now.getTime() + CHALLENGE_LIFETIME_MS) }, now);
  };
  /** Takes the challenge the answer signed, if it was made for this purpose (and user) and is still valid. */
  const take = async (clientDataJSON: string, purpose: ChallengePurpose, userId: string | undefined, refused: () => AppError): Promise<{ challenge: string; stored: StoredChallenge }> => {
    const challenge = signedChallenge(clientDataJSON);
    const stored = challenge === null ? null : await steps.takeChallenge(digest(challenge));
    if (!challenge || !stored || stored.purpose !== purpose || stored.expiresAt <= clock.now()) throw refused();
    if (userId !== undefined && stored.userId !== userId) throw refused();
    return { challenge, stored };
  };

  return {
    async registrationOptions(user, rp) {
      const existing = await factors.passkeys(user.id);
      const options = await (await webauthn()).generateRegistrationOptions({
        rpName: RP_NAME,
        rpID: rp.id,
        userName: user.email,
        userDisplayName: user.email,
        // The user handle is the user's id, so a password-less assertion names its owner.
        userID: new TextEncoder().encode(user.id),
        timeout: CEREMONY_TIMEOUT_MS,
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
        // Discoverable, so the passkey can also sign in without an e-mail or password.
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      });
      await remember(options.challenge, 'register', rp, user.id);
      return options;
    },

    async verifyRegistration(userId, name, answer) {
      const refused = (why = 'the registration answer is expired, used or not one this server asked for') => new AppError('VALIDATION_FAILED', `the passkey could not be registered: ${why}`);
      const { challenge, stored } = await take(answer.response.clientDataJSON, 'register', userId, refused);
      let verified;
      try {
        verified = await (await webauthn()).verifyRegistrationResponse({
          response: answer as unknown as RegistrationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: stored.origin,
          expectedRPID: stored.rpId,
          requireUserVerification: false,
        });
      } catch (err) {
        throw refused(err instanceof Error ? err.message : 'it does not verify');
      }
      if (!verified.verified) throw refused('it does not verify');
      const { credential, credentialBackedUp } = verified.registrationInfo;
      return {
        id: randomUUID(),
        userId,
        name,
        credentialId: credential.id,
        publicKey: credential.publicKey,
        signCount: credential.counter,
        transports: credential.transports ?? answer.response.transports ?? [],
        rpId: stored.rpId,
        backedUp: credentialBackedUp,
      };
    },

    async assertionOptions(purpose, rp, userId) {
      const allowed = userId === undefined ? [] : (await factors.passkeys(userId)).filter((p) => p.rpId === rp.id);
      if (userId !== undefined && allowed.length === 0) throw new AppError('CONFLICT', `you have no passkey for ${rp.id}`);
      const options = await (await webauthn()).generateAuthenticationOptions({
        rpID: rp.id,
        allowCredentials: allowed.map((p) => ({ id: p.credentialId, transports: p.transports })),
        timeout: CEREMONY_TIMEOUT_MS,
        // Without a password, the passkey is both factors: the authenticator must verify its user.
        userVerification: purpose === 'sign_in' ? 'required' : 'preferred',
      });
      await remember(options.challenge, purpose, rp, userId ?? null);
      return options;
    },

    async verifyAssertion(purpose, answer, userId) {
      const refused = () => new AppError('UNAUTHENTICATED', 'the passkey could not be verified');
      const { challenge, stored } = await take(answer.response.clientDataJSON, purpose, userId, refused);
      const passkey = await factors.passkeyByCredential(answer.id);
      if (!passkey || passkey.rpId !== stored.rpId || (userId !== undefined && passkey.userId !== userId)) throw refused();
      let verified;
      try {
        verified = await (await webauthn()).verifyAuthenticationResponse({
          response: answer as unknown as AuthenticationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: stored.origin,
          expectedRPID: stored.rpId,
          credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: passkey.signCount, transports: passkey.transports },
          requireUserVerification: purpose === 'sign_in',
        });
      } catch {
        throw refused();
      }
      if (!verified.verified) throw refused();
      await factors.passkeyUsed(passkey.id, verified.authenticationInfo.newCounter, clock.now());
      return passkey;
    },
  };
}
