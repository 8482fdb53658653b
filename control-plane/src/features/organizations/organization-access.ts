// Which organization a request acts on, and whether the actor's role allows it. Roles
// rank owner > admin > member > viewer (API.md): viewers read; members also write services,
// rules, alerts and channels; admins also manage members, teams, API keys and agents (an
// agent's token receives the organization's decrypted check secrets). An API key
// acts in its own organization only, with the lower of its role and its creator's.
import { AppError } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { Role } from './membership.entity.js';
import type { Grant, GrantEnd, OrganizationsRepository } from './organizations.repository.js';

export const ROLE_RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export interface OrganizationAccess {
  /** The actor's role in the organization, or null when it may not act there at all. */
  effectiveRole(actor: Actor, organizationId: string, memberRole: Role | null): Role | null;
  roleIn(actor: Actor, organizationId: string): Promise<Role>;
  /** The token's organization, or `slug`'s when given; FORBIDDEN unless the actor may read it. */
  resolveReadable(actor: Actor, slug?: string): Promise<string>;
  /** The token's organization, or `organizationId`; FORBIDDEN unless the actor may write there. */
  resolveWritable(actor: Actor, organizationId?: string): Promise<string>;
  /** The token's organization; FORBIDDEN below admin (members, teams, API keys, agents). */
  resolveManaging(actor: Actor): Promise<string>;
  assertCanWrite(role: Role): void;
  /** For long-lived readers (the WebSocket feed): null while each grant holds, else why it ended. */
  endedGrants(grants: Grant[]): Promise<(GrantEnd | null)[]>;
}

export function createOrganizationAccess(organizations: OrganizationsRepository): OrganizationAccess {
  const assertAtLeast = (role: Role, needed: Role, what: string) => {
    if (ROLE_RANK[role] < ROLE_RANK[needed]) throw new AppError('FORBIDDEN', `the ${role} role cannot ${what}`);
  };
  const effectiveRole = (actor: Actor, organizationId: string, memberRole: Role | null): Role | null => {
    if (!memberRole) return null;
    if (!actor.apiKey) return memberRole;
    if (organizationId !== actor.organizationId) return null;
    return ROLE_RANK[actor.apiKey.role] < ROLE_RANK[memberRole] ? actor.apiKey.role : memberRole;
  };
  const roleIn = async (actor: Actor, organizationId: string): Promise<Role> => {
    const role = effectiveRole(actor, organizationId, await organizations.roleOf(actor.userId, organizationId));
    if (!role) throw new AppError('FORBIDDEN', 'you are not a member of this organization');
    return role;
  };
  return {
    effectiveRole,
    roleIn,
    async resolveReadable(actor, slug) {
      const organizationId = slug === undefined ? actor.organizationId : await organizations.findIdBySlug(slug);
      const role = organizationId && effectiveRole(actor, organizationId, await organizations.roleOf(actor.userId, organizationId));
      if (!organizationId || !role) throw new AppError('FORBIDDEN', slug === undefined ? 'you are not a member of this organization' : `you are not a member of an organization "${slug}"`);
      return organizationId;
    },
    async resolveWritable(actor, organizationId = actor.organizationId) {
      assertAtLeast(await roleIn(actor, organizationId), 'member', 'make changes');
      return organizationId;
    },
    async resolveManaging(actor) {
      assertAtLeast(await roleIn(actor, actor.organizationId), 'admin', 'manage members, teams, API keys or agents');
      return actor.organizationId;
    },
    assertCanWrite: (role) => assertAtLeast(role, 'member', 'make changes'),
    endedGrants: (grants) => organizations.endedGrants(grants),
  };
}
