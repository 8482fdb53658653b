// Invitations, and the account and membership an accepted one creates. Writes that must go
// together (claiming the invitation, the new user, the membership) take the open transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUniqueViolation } from '../../db/pg-errors.js';
import type { Tx } from '../../db/tx.js';
import { AppError } from '../../errors.js';
import type { Role } from '../organizations/membership.entity.js';
import type { Invitation } from './invitation.js';

export interface NewInvitation {
  id: string;
  organizationId: string;
  email: string;
  role: Role;
  tokenHash: string;
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface InvitationsRepository {
  isMember(organizationId: string, email: string): Promise<boolean>;
  /** Stores the invitation in place of the open one (pending or expired) for the same address, if any. */
  replaceOpen(invitation: NewInvitation): Promise<void>;
  markSent(id: string): Promise<void>;
  find(organizationId: string, id: string): Promise<Invitation | null>;
  findByTokenHash(tokenHash: string): Promise<Invitation | null>;
  /** Newest first. */
  list(organizationId: string): Promise<Invitation[]>;
  /** Revokes an invitation neither accepted nor revoked; false when there was none. */
  revoke(organizationId: string, id: string, at: Date): Promise<boolean>;
  /** Marks the invitation accepted if it still is pending at `at`; false when it is not (used, revoked, expired). */
  claim(tx: Tx, id: string, userId: string, at: Date): Promise<boolean>;
  /** CONFLICT when the e-mail was registered meanwhile. */
  createUser(tx: Tx, user: { id: string; email: string; fullName: string; passwordHash: string }): Promise<void>;
  /** CONFLICT when the user is a member already. */
  addMember(tx: Tx, organizationId: string, userId: string, role: Role): Promise<void>;
}

const SELECT = `
  select i.*, o.name as organization_name, u.email as inviter_email, u.full_name as inviter_name
    from invitations i
    join organizations o on o.id = i.organization_id
    left join users u on u.id = i.invited_by`;

const time = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));

function toInvitation(r: Record<string, unknown>): Invitation {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    organizationName: String(r.organization_name),
    email: String(r.email),
    role: r.role as Role,
    invitedBy: r.invited_by ? { userId: String(r.invited_by), email: String(r.inviter_email), fullName: String(r.inviter_name) } : null,
    emailSent: Boolean(r.email_sent),
    createdAt: time(r.created_at)!,
    expiresAt: time(r.expires_at)!,
    acceptedAt: time(r.accepted_at),
    revokedAt: time(r.revoked_at),
  };
}

export function createInvitationsRepository(em: () => EntityManager): InvitationsRepository {
  const run = (sql: string, params: unknown[], on: EntityManager = em()) => on.execute<Record<string, unknown>[]>(sql, params);
  return {
    async isMember(organizationId, email) {
      const rows = await run('select 1 from memberships m join users u on u.id = m.user_id where m.organization_id = ? and u.email = ?', [organizationId, email]);
      return rows.length > 0;
    },
    async replaceOpen(i) {
      // A new id: the replaced invitation's link and its audit trail stay the old one's.
      await run(
        `insert into invitations (id, organization_id, email, role, token_hash, invited_by, created_at, expires_at)
           values (?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (organization_id, email) where accepted_at is null and revoked_at is null
           do update set id = excluded.id, role = excluded.role, token_hash = excluded.token_hash, invited_by = excluded.invited_by,
                         email_sent = false, created_at = excluded.created_at, expires_at = excluded.expires_at`,
        [i.id, i.organizationId, i.email, i.role, i.tokenHash, i.invitedBy, i.createdAt, i.expiresAt],
      );
    },
    async markSent(id) {
      await run('update invitations set email_sent = true where id = ?', [id]);
    },
    async find(organizationId, id) {
      const [row] = await run(`${SELECT} where i.organization_id = ? and i.id = ?`, [organizationId, id]);
      return row ? toInvitation(row) : null;
    },
    async findByTokenHash(tokenHash) {
      const [row] = await run(`${SELECT} where i.token_hash = ?`, [tokenHash]);
      return row ? toInvitation(row) : null;
    },
    async list(organizationId) {
      return (await run(`${SELECT} where i.organization_id = ? order by i.created_at desc, i.id`, [organizationId])).map(toInvitation);
    },
    async revoke(organizationId, id, at) {
      const rows = await run('update invitations set revoked_at = ? where organization_id = ? and id = ? and accepted_at is null and revoked_at is null returning id', [at, organizationId, id]);
      return rows.length > 0;
    },
    async claim(tx, id, userId, at) {
      const rows = await run(
        'update invitations set accepted_at = ?, accepted_by = ? where id = ? and accepted_at is null and revoked_at is null and expires_at > ? returning id',
        [at, userId, id, at],
        tx,
      );
      return rows.length > 0;
    },
    async createUser(tx, u) {
      try {
        await run('insert into users (id, email, full_name, password_hash) values (?, ?, ?, ?)', [u.id, u.email, u.fullName, u.passwordHash], tx);
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('CONFLICT', 'an account with this e-mail address was created meanwhile: accept again with its password');
        throw err;
      }
    },
    async addMember(tx, organizationId, userId, role) {
      try {
        await run('insert into memberships (organization_id, user_id, role) values (?, ?, ?)', [organizationId, userId, role], tx);
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('CONFLICT', 'you are a member of this organization already: sign in instead');
        throw err;
      }
    },
  };
}
