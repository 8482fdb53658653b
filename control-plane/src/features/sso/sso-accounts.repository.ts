// Users, identities and memberships as single sign-on changes them, always inside the
// transaction of one sign-in (with its audit rows).
import { randomUUID } from 'node:crypto';
import { isUniqueViolation } from '../../db/pg-errors.js';
import type { Tx } from '../../db/tx.js';
import { AppError } from '../../errors.js';
import type { Role } from '../organizations/membership.entity.js';

export interface SsoUser {
  id: string;
  email: string;
}

export interface LinkedIdentity {
  issuer: string;
  subject: string;
  userId: string;
  email: string | null;
}

export interface SsoAccountsRepository {
  userByIdentity(tx: Tx, issuer: string, subject: string): Promise<SsoUser | null>;
  userByEmail(tx: Tx, email: string): Promise<SsoUser | null>;
  /** A user with no usable password; CONFLICT when the e-mail is registered meanwhile. */
  createUser(tx: Tx, user: { email: string; fullName: string }): Promise<SsoUser>;
  /** Links the identity to its user, or notes this sign-in on the link. */
  linkIdentity(tx: Tx, identity: LinkedIdentity): Promise<void>;
  /** The user's role there, the row locked until the transaction ends. */
  lockedRole(tx: Tx, organizationId: string, userId: string): Promise<Role | null>;
  addMember(tx: Tx, organizationId: string, userId: string, role: Role): Promise<void>;
  setRole(tx: Tx, organizationId: string, userId: string, role: Role): Promise<void>;
  removeMember(tx: Tx, organizationId: string, userId: string): Promise<void>;
}

/**
 * Stored in place of a password hash: no argon2 hash has this form, so verification always
 * fails (and a password reset may still give the person one).
 */
const NO_PASSWORD = '!sso-only';

export function createSsoAccountsRepository(): SsoAccountsRepository {
  const run = (tx: Tx, sql: string, params: unknown[]) => tx.execute<Record<string, unknown>[]>(sql, params);
  const toUser = (row: Record<string, unknown> | undefined) => (row ? { id: String(row.id), email: String(row.email) } : null);
  return {
    async userByIdentity(tx, issuer, subject) {
      const [row] = await run(tx, 'select u.id, u.email from user_identities i join users u on u.id = i.user_id where i.issuer = ? and i.subject = ?', [issuer, subject]);
      return toUser(row);
    },
    async userByEmail(tx, email) {
      const [row] = await run(tx, 'select id, email from users where email = ?', [email]);
      return toUser(row);
    },
    async createUser(tx, user) {
      const id = randomUUID();
      try {
        await run(tx, 'insert into users (id, email, full_name, password_hash) values (?, ?, ?, ?)', [id, user.email, user.fullName, NO_PASSWORD]);
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('CONFLICT', 'an account with this e-mail address was registered meanwhile; sign in again');
        throw err;
      }
      return { id, email: user.email };
    },
    async linkIdentity(tx, i) {
      await run(
        tx,
        `insert into user_identities (issuer, subject, user_id, email) values (?, ?, ?, ?)
         on conflict (issuer, subject) do update set email = excluded.email, last_sign_in_at = now()`,
        [i.issuer, i.subject, i.userId, i.email],
      );
    },
    async lockedRole(tx, organizationId, userId) {
      const [row] = await run(tx, 'select role from memberships where organization_id = ? and user_id = ? for update', [organizationId, userId]);
      return row ? (row.role as Role) : null;
    },
    async addMember(tx, organizationId, userId, role) {
      await run(tx, 'insert into memberships (organization_id, user_id, role) values (?, ?, ?)', [organizationId, userId, role]);
    },
    async setRole(tx, organizationId, userId, role) {
      await run(tx, "update memberships set role = ? where organization_id = ? and user_id = ? and role <> 'owner'", [role, organizationId, userId]);
    },
    async removeMember(tx, organizationId, userId) {
      await run(tx, "delete from memberships where organization_id = ? and user_id = ? and role <> 'owner'", [organizationId, userId]);
    },
  };
}
