// Badge tokens: random secrets shown once, kept as sha256. A token only reveals a service's
// badges, and it is long and random, so one unsalted hash suffices (no password hashing).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const TOKEN_BYTES = 24;

export function newBadgeToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

export function hashBadgeToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Compared in constant time, so response timing tells nothing about the stored hash. */
export function badgeTokenMatches(token: string, storedHash: string | null): boolean {
  if (!storedHash) return false;
  const given = Buffer.from(hashBadgeToken(token), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
