// The tokens of e-mailed links (invitations, password resets): 256 random bits, kept only as
// their sha256, so a copy of the database opens no link. A digest without salt is enough for
// random tokens: there is no dictionary to try.
import { createHash, randomBytes } from 'node:crypto';

export interface LinkToken {
  /** Goes into the link, never stored. */
  token: string;
  /** Stored, and looked up by. */
  hash: string;
}

export const hashLinkToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export function newLinkToken(): LinkToken {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashLinkToken(token) };
}
