import type { EntityManager } from '@mikro-orm/postgresql';
import { MembershipEntity, type Role } from './membership.entity.js';
import { OrganizationEntity } from './organization.entity.js';

export interface OrganizationsRepository {
  roleOf(userId: string, organizationId: string): Promise<Role | null>;
  findIdBySlug(slug: string): Promise<string | null>;
}

export function createOrganizationsRepository(em: () => EntityManager): OrganizationsRepository {
  return {
    async roleOf(userId, organizationId) {
      const membership = await em().findOne(MembershipEntity, { userId, organizationId });
      return membership?.role ?? null;
    },
    async findIdBySlug(slug) {
      const org = await em().findOne(OrganizationEntity, { slug }, { fields: ['id'] });
      return org?.id ?? null;
    },
  };
}
