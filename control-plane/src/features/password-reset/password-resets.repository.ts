// Password reset links (their sha256 only) and the password they set. Claiming a link, ending
// the user's other links and writing the new password take the one open transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';

export interface NewPasswordReset {
  id: string;
  userId: string;
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface PasswordResetsRepository {
  /** Also forgets the user's links that ended before `createdAt` (used or expired): nothing reads them again. */
  insert(tx: Tx, reset: NewPasswordReset): Promise<void>;
  /** Whether an unused link with this hash works at `at`. */
  isOpen(tokenHash: string, at: Date): Promise<boolean>;
  /** Marks the link used if it still works at `at`, and with it every other open link of its user; answers the user, or null. */
  claim(tx: Tx, tokenHash: string, at: Date): Promise<{ id: string; email: string } | null>;
  setPassword(tx: Tx, userId: string, passwordHash: string): Promise<void>;
  /** The organizations the user belongs to (each one's audit log hears of the reset). */
  organizationsOf(userId: string, tx?: Tx): Promise<string[]>;
}

export function createPasswordResetsRepository(em: () => EntityManager): PasswordResetsRepository {
  const run = (sql: string, params: unknown[], on: EntityManager = em()) => on.execute<Record<string, unknown>[]>(sql, params);
  return {
    async insert(tx, r) {
      await run('delete from password_resets where user_id = ? and (used_at is not null or expires_at <= ?)', [r.userId, r.createdAt], tx);
      await run('insert into password_resets (id, user_id, token_hash, created_at, expires_at) values (?, ?, ?, ?, ?)', [r.id, r.userId, r.tokenHash, r.createdAt, r.expiresAt], tx);
    },
    async isOpen(tokenHash, at) {
      return (await run('select 1 from password_resets where token_hash = ? and used_at is null and expires_at > ?', [tokenHash, at])).length > 0;
    },
    async claim(tx, tokenHash, at) {
      const [row] = await run(
        `update password_resets r set used_at = ? from users u
          where u.id = r.user_id and r.token_hash = ? and r.used_at is null and r.expires_at > ? returning u.id, u.email`,
        [at, tokenHash, at],
        tx,
      );
      if (!row) return null;
      const user = { id: String(row.id), email: String(row.email) };
      await run('update password_resets set used_at = ? where user_id = ? and used_at is null', [at, user.id], tx);
      return user;
    },
    async setPassword(tx, userId, passwordHash) {
      await run('update users set password_hash = ?, updated_at = now() where id = ?', [passwordHash, userId], tx);
    },
    async organizationsOf(userId, tx) {
      return (await run('select organization_id from memberships where user_id = ? order by created_at', [userId], tx)).map((r) => String(r.organization_id));
    },
  };
}
