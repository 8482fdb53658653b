// Which organization a request acts on, and whether the user's role allows it.
import { AppError } from '../../errors.js';
import type { Actor } from '../../http/authenticate.js';
import type { Role } from './membership.entity.js';
import type { OrganizationsRepository } from './organizations.repository.js';

const WRITERS: readonly Role[] = ['owner', 'admin', 'member'];

export interface OrganizationAccess {
  /** The token's organization, or `slug`'s when given; FORBIDDEN unless the user is a member. */
  resolveReadable(actor: Actor, slug?: string): Promise<string>;
  /** The token's organization, or `organizationId`; FORBIDDEN unless the user may write there. */
  resolveWritable(actor: Actor, organizationId?: string): Promise<string>;
  assertCanWrite(role: Role): void;
}

export function createOrganizationAccess(organizations: OrganizationsRepository): OrganizationAccess {
  const assertCanWrite = (role: Role) => {
    if (!WRITERS.includes(role)) throw new AppError('FORBIDDEN', `the ${role} role cannot make changes`);
  };
  return {
    async resolveReadable(actor, slug) {
      const organizationId = slug === undefined ? actor.organizationId : await organizations.findIdBySlug(slug);
      const role = organizationId && (await organizations.roleOf(actor.userId, organizationId));
      if (!organizationId || !role) throw new AppError('FORBIDDEN', slug === undefined ? 'you are not a member of this organization' : `you are not a member of an organization "${slug}"`);
      return organizationId;
    },
    async resolveWritable(actor, organizationId = actor.organizationId) {
      const role = await organizations.roleOf(actor.userId, organizationId);
      if (!role) throw new AppError('FORBIDDEN', 'you are not a member of this organization');
      assertCanWrite(role);
      return organizationId;
    },
    assertCanWrite,
  };
}
