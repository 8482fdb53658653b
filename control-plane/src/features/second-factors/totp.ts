// TOTP (RFC 6238) as authenticator apps know it: SHA-1, six digits, 30-second steps. A code
// is accepted one step either side of now (clocks of phones drift), and the step it matched is
// answered so that the caller can refuse any code of that step or an earlier one afterwards.
import { Secret, TOTP } from 'otpauth';

const ISSUER = 'Outpost';
const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** Steps accepted either side of the current one. */
const WINDOW = 1;
/** 160 bits, the size RFC 4226 recommends for the shared secret. */
const SECRET_BYTES = 20;

export interface NewTotpSecret {
  /** base32, as typed into an app that cannot scan the QR code. */
  secret: string;
  /** otpauth://totp/Outpost:<email>?secret=…&issuer=Outpost&… */
  uri: string;
}

const totpOf = (secret: string, label = '') =>
  new TOTP({ issuer: ISSUER, label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: DIGITS, period: PERIOD_SECONDS });

export function newTotpSecret(accountName: string): NewTotpSecret {
  const secret = new Secret({ size: SECRET_BYTES }).base32;
  return { secret, uri: totpOf(secret, accountName).toString() };
}

/** The step `code` belongs to when it is valid at `at` (within the window); null otherwise. */
export function matchTotpStep(secret: string, code: string, at: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = totpOf(secret);
  const delta = totp.validate({ token: code, timestamp: at.getTime(), window: WINDOW });
  return delta === null ? null : totp.counter({ timestamp: at.getTime() }) + delta;
}

