import type { EntityManager } from '@mikro-orm/postgresql';
import { isUniqueViolation } from '../../db/pg-errors.js';
import { AppError } from '../../errors.js';
import type { Role } from '../organizations/membership.entity.js';

export interface Profile {
  id: string;
  email: string;
  fullName: string;
  createdAt: Date;
  organizations: { id: string; name: string; slug: string; role: Role }[];
}

export interface ProfileRepository {
  find(userId: string): Promise<Profile | null>;
  passwordHash(userId: string): Promise<string | null>;
  /** CONFLICT when the new e-mail belongs to someone else. */
  update(userId: string, changes: { fullName?: string; email?: string; passwordHash?: string }): Promise<void>;
}

export function createProfileRepository(em: () => EntityManager): ProfileRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async find(userId) {
      const [user] = await run('select id, email, full_name, created_at from users where id = ?', [userId]);
      if (!user) return null;
      const orgs = await run('select o.id, o.name, o.slug, m.role from memberships m join organizations o on o.id = m.organization_id where m.user_id = ? order by m.created_at', [userId]);
      return {
        id: String(user.id),
        email: String(user.email),
        fullName: String(user.full_name),
        createdAt: new Date(user.created_at as string),
        organizations: orgs.map((o) => ({ id: String(o.id), name: String(o.name), slug: String(o.slug), role: o.role as Role })),
      };
    },
    async passwordHash(userId) {
      const [row] = await run('select password_hash from users where id = ?', [userId]);
      return row ? String(row.password_hash) : null;
    },
    async update(userId, c) {
      try {
        await run('update users set full_name = coalesce(?, full_name), email = coalesce(?, email), password_hash = coalesce(?, password_hash), updated_at = now() where id = ?', [
          c.fullName ?? null, c.email ?? null, c.passwordHash ?? null, userId,
        ]);
      } catch (err) {
        if (isUniqueViolation(err)) throw new AppError('CONFLICT', 'this e-mail address is already registered');
        throw err;
      }
    },
  };
}
