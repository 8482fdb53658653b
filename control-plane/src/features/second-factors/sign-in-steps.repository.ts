// What lives between two requests of a sign-in: the token that stands for a password already
// checked until its second factor arrives, and WebAuthn challenges. Both are stored as sha256
// and taken by deleting them, so each works once; expired rows go whenever new ones are made.
import type { EntityManager } from '@mikro-orm/postgresql';

export interface MfaTokenRow {
  userId: string;
  organizationId: string;
  enrollmentRequired: boolean;
  failedAttempts: number;
}

export type ChallengePurpose = 'register' | 'sign_in' | 'second_factor' | 'proof';

export interface StoredChallenge {
  purpose: ChallengePurpose;
  userId: string | null;
  rpId: string;
  origin: string;
  expiresAt: Date;
}

export interface SignInUser {
  id: string;
  email: string;
  /** The organization a sign-in lands in: the user's oldest membership; null without one. */
  organizationId: string | null;
}

export interface SignInStepsRepository {
  signInUser(userId: string): Promise<SignInUser | null>;
  insertMfaToken(hash: string, row: Omit<MfaTokenRow, 'failedAttempts'>, expiresAt: Date, now: Date): Promise<void>;
  /** The live token (not expired at `now`), or null. */
  findMfaToken(hash: string, now: Date): Promise<MfaTokenRow | null>;
  /** Counts a wrong factor; the token is gone once it reaches `maxAttempts`. Answers the count. */
  failMfaToken(hash: string, maxAttempts: number): Promise<number>;
  /** Takes the token; false when another request took it first. */
  takeMfaToken(hash: string): Promise<boolean>;
  insertChallenge(hash: string, challenge: StoredChallenge, now: Date): Promise<void>;
  /** Takes the challenge whatever its state; the caller checks purpose, user and expiry. */
  takeChallenge(hash: string): Promise<StoredChallenge | null>;
}

export function createSignInStepsRepository(em: () => EntityManager): SignInStepsRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async signInUser(userId) {
      const [row] = await run(
        'select u.id, u.email, (select m.organization_id from memberships m where m.user_id = u.id order by m.created_at limit 1) as organization_id from users u where u.id = ?',
        [userId],
      );
      return row ? { id: String(row.id), email: String(row.email), organizationId: row.organization_id ? String(row.organization_id) : null } : null;
    },
    async insertMfaToken(hash, t, expiresAt, now) {
      await run('delete from mfa_tokens where expires_at < ?', [now]);
      await run('insert into mfa_tokens (token_hash, user_id, organization_id, enrollment_required, expires_at) values (?, ?, ?, ?, ?)', [
        hash, t.userId, t.organizationId, t.enrollmentRequired, expiresAt,
      ]);
    },
    async findMfaToken(hash, now) {
      const [row] = await run('select user_id, organization_id, enrollment_required, failed_attempts from mfa_tokens where token_hash = ? and expires_at > ?', [hash, now]);
      return row
        ? { userId: String(row.user_id), organizationId: String(row.organization_id), enrollmentRequired: Boolean(row.enrollment_required), failedAttempts: Number(row.failed_attempts) }
        : null;
    },
    async failMfaToken(hash, maxAttempts) {
      const [row] = await run('update mfa_tokens set failed_attempts = failed_attempts + 1 where token_hash = ? returning failed_attempts', [hash]);
      const count = row ? Number(row.failed_attempts) : maxAttempts;
      if (count >= maxAttempts) await run('delete from mfa_tokens where token_hash = ?', [hash]);
      return count;
    },
    async takeMfaToken(hash) {
      return (await run('delete from mfa_tokens where token_hash = ? returning token_hash', [hash])).length > 0;
    },
    async insertChallenge(hash, c, now) {
      await run('delete from webauthn_challenges where expires_at < ?', [now]);
      await run('insert into webauthn_challenges (challenge_hash, purpose, user_id, rp_id, origin, expires_at) values (?, ?, ?, ?, ?, ?)', [
        hash, c.purpose, c.userId, c.rpId, c.origin, c.expiresAt,
      ]);
    },
    async takeChallenge(hash) {
      const [row] = await run('delete from webauthn_challenges where challenge_hash = ? returning purpose, user_id, rp_id, origin, expires_at', [hash]);
      return row
        ? {
            purpose: row.purpose as ChallengePurpose,
            userId: row.user_id ? String(row.user_id) : null,
            rpId: String(row.rp_id),
            origin: String(row.origin),
            expiresAt: new Date(row.expires_at as string),
          }
        : null;
    },
  };
}
