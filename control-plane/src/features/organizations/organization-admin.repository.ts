// The organization itself and its members, for the organization, members and profile routes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUniqueViolation } from '../../db/pg-errors.js';
import { AppError } from '../../errors.js';
import type { Role } from './membership.entity.js';

export interface OrganizationView {
  id: string;
  name: string;
  slug: string;
  plan: string;
  createdAt: Date;
  updatedAt: Date;
}

/** An organization and the role a user holds there by membership. */
export interface MemberOrganization extends OrganizationView {
  role: Role;
}

export interface Member {
  userId: string;
  email: string;
  fullName: string;
  role: Role;
  joinedAt: Date;
}

export interface OrganizationAdminRepository {
  find(organizationId: string): Promise<OrganizationView | null>;
  /** Every organization the user belongs to, by name (case-insensitive). */
  organizationsOf(userId: string): Promise<MemberOrganization[]>;
  /** CONFLICT when the slug is taken. */
  update(organizationId: string, changes: { name?: string; slug?: string; plan?: string }): Promise<OrganizationView>;
  members(organizationId: string): Promise<Member[]>;
  member(organizationId: string, userId: string): Promise<Member | null>;
  userIdByEmail(email: string): Promise<string | null>;
  addMember(organizationId: string, userId: string, role: Role): Promise<void>;
  /** Changes a role, refusing (CONFLICT) to leave the organization without an owner. */
  setRole(organizationId: string, userId: string, role: Role): Promise<void>;
  /** Removes a member, refusing (CONFLICT) to remove the last owner. */
  removeMember(organizationId: string, userId: string): Promise<void>;
}

const LAST_OWNER = 'an organization keeps at least one owner';

export function createOrganizationAdminRepository(em: () => EntityManager): OrganizationAdminRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);
  const toMember = (r: Record<string, unknown>): Member => ({
    userId: String(r.user_id),
    email: String(r.email),
    fullName: String(r.full_name),
    role: r.role as Role,
    joinedAt: new Date(r.created_at as string),
  });
  const toOrg = (r: Record<string, unknown>): OrganizationView => ({
    id: String(r.id),
    name: String(r.name),
    slug: String(r.slug),
    plan: String(r.plan),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  });
  // Owner changes lock the organization's row so two concurrent demotions cannot both pass.
  const guardOwners = async (tx: EntityManager, organizationId: string, userId: string) => {
    await run('select id from organizations where id = ? for update', [organizationId], tx);
    const [row] = await run(
      `select count(*) filter (where role = 'owner') as owners, bool_or(user_id = ? and role = 'owner') as is_owner from memberships where organization_id = ?`,
      [userId, organizationId],
      tx,
    );
    return { owners: Number(row?.owners ?? 0), isOwner: Boolean(row?.is_owner) };
  };

  return {
    async find(organizationId) {
      const [row] = await run('select * from organizations where id = ?', [organizationId]);
      return row ? toOrg(row) : null;
    },
    async organizationsOf(userId) {
      const rows = await run('select o.*, m.role from memberships m join organizations o on o.id = m.organization_id where m.user_id = ? order by lower(o.name), o.name, o.id', [userId]);
      return rows.map((r) => ({ ...toOrg(r), role: r.role as Role }));
    },
    async update(organizationId, c) {
      try {
        const [row] = await run('update organizations set name = coalesce(?, name), slug = coalesce(?, slug), plan = coalesce(?, plan), updated_at = now() where id = ? returning *', [
          c.name ?? null, c.slug ?? null, c.plan ?? null, organizationId,
        ]);
        return toOrg(row!);
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('CONFLICT', `the slug "${c.slug}" is taken`);
        throw err;
      }
    },
    async members(organizationId) {
      const rows = await run('select m.user_id, u.email, u.full_name, m.role, m.created_at from memberships m join users u on u.id = m.user_id where m.organization_id = ? order by m.created_at, u.email', [organizationId]);
      return rows.map(toMember);
    },
    async member(organizationId, userId) {
      const [row] = await run('select m.user_id, u.email, u.full_name, m.role, m.created_at from memberships m join users u on u.id = m.user_id where m.organization_id = ? and m.user_id = ?', [organizationId, userId]);
      return row ? toMember(row) : null;
    },
    async userIdByEmail(email) {
      const [row] = await run('select id from users where email = ?', [email]);
      return row ? String(row.id) : null;
    },
    async addMember(organizationId, userId, role) {
      try {
        await run('insert into memberships (organization_id, user_id, role) values (?, ?, ?)', [organizationId, userId, role]);
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('CONFLICT', 'this user is already a member');
        throw err;
      }
    },
    async setRole(organizationId, userId, role) {
      await em().transactional(async (tx) => {
        const { owners, isOwner } = await guardOwners(tx, organizationId, userId);
        if (isOwner && role !== 'owner' && owners <= 1) throw new AppError('CONFLICT', LAST_OWNER);
        await run('update memberships set role = ? where organization_id = ? and user_id = ?', [role, organizationId, userId], tx);
      });
    },
    async removeMember(organizationId, userId) {
      await em().transactional(async (tx) => {
        const { owners, isOwner } = await guardOwners(tx, organizationId, userId);
        if (isOwner && owners <= 1) throw new AppError('CONFLICT', LAST_OWNER);
        await run('delete from memberships where organization_id = ? and user_id = ?', [organizationId, userId], tx);
      });
    },
  };
}
