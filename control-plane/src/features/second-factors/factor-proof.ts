// "Is it really you?" before a factor is removed or recovery codes are replaced: the password,
// a code of the authenticator app or a passkey. A stolen session alone cannot weaken the
// account, and wrong answers count against the same limits as wrong second factors.
import { AppError } from '../../errors.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { PasswordHasher } from '../auth/password-hasher.js';
import type { AuditWho } from './audit-who.js';
import type { SecondFactorLimiter } from './second-factor-limiter.js';
import type { FactorProof } from './second-factors.schema.js';
import type { TotpFactor } from './totp-factor.js';
import type { WebAuthnCeremonies } from './webauthn-ceremonies.js';

export interface FactorProofDeps {
  passwordHash(userId: string): Promise<string | null>;
  hasher: PasswordHasher;
  totp: Pick<TotpFactor, 'verify'>;
  ceremonies: Pick<WebAuthnCeremonies, 'verifyAssertion'>;
  limiter: SecondFactorLimiter;
  audit: AuditTrail;
}

export type FactorProofCheck = (userId: string, proof: FactorProof, who: AuditWho) => Promise<void>;

export function createFactorProof(d: FactorProofDeps): FactorProofCheck {
  const holds = async (userId: string, proof: FactorProof): Promise<boolean> => {
    if (proof.password !== undefined) {
      const hash = await d.passwordHash(userId);
      return hash !== null && (await d.hasher.verify(hash, proof.password));
    }
    if (proof.code !== undefined) return d.totp.verify(userId, proof.code);
    try {
      await d.ceremonies.verifyAssertion('proof', proof.passkey!, userId);
      return true;
    } catch (err) {
      if (err instanceof AppError && err.code === 'UNAUTHENTICATED') return false;
      throw err;
    }
  };

  return async (userId, proof, who) => {
    const attempt = { userId, address: who.address ?? '' };
    await d.limiter.assertAllowed(attempt);
    if (await holds(userId, proof)) return d.limiter.recordSuccess(attempt);
    const method = proof.password !== undefined ? 'password' : proof.code !== undefined ? 'totp' : 'passkey';
    await d.audit.record({ ...who, action: 'reauthenticate_failed', resource: 'user', resourceId: userId, after: { with: method } });
    await d.limiter.recordFailure(attempt);
    throw new AppError('FORBIDDEN', `the ${method === 'totp' ? 'code' : method} given as proof is wrong`);
  };
}
