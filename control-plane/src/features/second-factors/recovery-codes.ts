// Recovery codes: ten per user, each good once, for when the authenticator app is lost. Shown
// once in the clear, kept as sha256: 50 random bits per code are beyond guessing within the
// rate limits, so a slow hash would add nothing.
import { createHash, randomInt } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32 without the letters people confuse (i, l, o, u). */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const HALF = 5;

/** Ten fresh codes such as `k3m9x-7hq2p`. */
export function newRecoveryCodes(): string[] {
  const half = () => Array.from({ length: HALF }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => `${half()}-${half()}`);
}

/** The digest a code is stored and looked up by; case, spaces and dashes do not matter. */
export function recoveryCodeHash(code: string): string {
  const normal = code.toLowerCase().replace(/[\s-]/g, '');
  return createHash('sha256').update(normal).digest('hex');
}
