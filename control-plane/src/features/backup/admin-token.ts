// The credential `npm run admin -- backup` shows the running control plane on the embedded
// database (which only that process may open): proof that the caller can read the JWT secret,
// that is, runs on the host with the control plane's DATA_DIR or configuration. Good for a
// minute, and only for the backup route: it is not a JWT, so no other route accepts it.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const ADMIN_TOKEN_HEADER = 'x-outpost-admin';
const LIFETIME_MS = 60_000;

const mac = (jwtSecret: string, expiresAt: number) => createHmac('sha256', jwtSecret).update(`outpost-admin-backup:${expiresAt}`).digest('base64url');

export function issueAdminToken(jwtSecret: string, now = Date.now()): string {
  const expiresAt = now + LIFETIME_MS;
  return `${expiresAt}.${mac(jwtSecret, expiresAt)}`;
}

export function verifyAdminToken(token: string, jwtSecret: string, now = Date.now()): boolean {
  const match = /^(\d{13})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return false;
  const expiresAt = Number(match[1]);
  if (expiresAt < now || expiresAt > now + LIFETIME_MS) return false;
  const expected = Buffer.from(mac(jwtSecret, expiresAt));
  const given = Buffer.from(match[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
