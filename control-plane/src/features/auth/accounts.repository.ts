// Users, and the organization plus owner membership created with each registration.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUniqueViolation } from '../../db/pg-errors.js';
import { AppError } from '../../errors.js';
import { MembershipEntity } from '../organizations/membership.entity.js';
import { OrganizationEntity } from '../organizations/organization.entity.js';
import { UserEntity } from './user.entity.js';

export interface NewAccount {
  userId: string;
  email: string;
  fullName: string;
  passwordHash: string;
  organizationId: string;
  organizationName: string;
  organizationSlug: string;
  organizationPlan: string;
}

export interface StoredUser {
  id: string;
  email: string;
  fullName: string;
  passwordHash: string;
}

export interface AccountsRepository {
  findUserByEmail(email: string): Promise<StoredUser | null>;
  /** Throws CONFLICT when the e-mail is taken; retries are the caller's for a taken slug. */
  createAccount(account: NewAccount): Promise<void>;
  /** The organization a login lands in: the user's oldest membership. */
  primaryOrganizationId(userId: string): Promise<string | null>;
}

export class SlugTakenError extends Error {}

export function createAccountsRepository(em: () => EntityManager): AccountsRepository {
  return {
    async findUserByEmail(email) {
      const user = await em().findOne(UserEntity, { email }, { populate: ['passwordHash'] });
      return user && { id: user.id, email: user.email, fullName: user.fullName, passwordHash: user.passwordHash };
    },

    async createAccount(a) {
      try {
        await em().transactional(async (tx) => {
          tx.create(OrganizationEntity, { id: a.organizationId, name: a.organizationName, slug: a.organizationSlug, plan: a.organizationPlan });
          tx.create(UserEntity, { id: a.userId, email: a.email, fullName: a.fullName, passwordHash: a.passwordHash });
          await tx.flush();
          tx.create(MembershipEntity, { organizationId: a.organizationId, userId: a.userId, role: 'owner' });
        });
      } catch (err) {
        if (isUniqueViolation(err, 'users_email_key')) throw new AppError('CONFLICT', 'this e-mail address is already registered');
        if (isUniqueViolation(err, 'organizations_slug_key')) throw new SlugTakenError();
        throw err;
      }
    },

    async primaryOrganizationId(userId) {
      const membership = await em().findOne(MembershipEntity, { userId }, { orderBy: { createdAt: 'asc' } });
      return membership?.organizationId ?? null;
    },
  };
}
