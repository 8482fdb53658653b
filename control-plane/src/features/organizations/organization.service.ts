// The acting organization and its members (API.md roles): everyone reads; admins manage
// members below their own rank; only owners rename the organization or change its plan.
// A person in several organizations switches between them with a token for each.
import { AppError, notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { TokenService } from '../auth/token-service.js';
import type { OrganizationEntry } from '../sessions/organization-entry.js';
import type { Role } from './membership.entity.js';
import { ROLE_RANK, type OrganizationAccess } from './organization-access.js';
import type { Member, MemberOrganization, OrganizationAdminRepository } from './organization-admin.repository.js';
import { isPlan, PLANS } from './plans.js';

export interface OrganizationToken {
  token: string;
  userId: string;
  organizationId: string;
  role: Role;
  expiresAt: Date;
}

// One answer for unknown ids and foreign organizations: neither reveals that an id exists.
const NOT_A_MEMBER = 'you are not a member of this organization';

export function createOrganizationService(repo: OrganizationAdminRepository, access: OrganizationAccess, tokens: TokenService, enter?: OrganizationEntry) {
  const assertOutranks = (actorRole: Role, role: Role) => {
    if (ROLE_RANK[role] > ROLE_RANK[actorRole]) throw new AppError('FORBIDDEN', `a ${actorRole} cannot grant or change the ${role} role`);
  };
  const memberOrFail = async (organizationId: string, userId: string) => {
    const member = await repo.member(organizationId, userId);
    if (!member) throw notFound('member');
    return member;
  };

  return {
    /** The acting organization with the actor's effective role there; every member reads it. */
    async get(actor: Actor): Promise<MemberOrganization> {
      const role = await access.roleIn(actor, actor.organizationId);
      const organization = await repo.find(actor.organizationId);
      if (!organization) throw notFound('organization');
      return { ...organization, role };
    },
    /** The organizations the actor may act in (an API key: its own only), with its role in each. */
    async list(actor: Actor): Promise<MemberOrganization[]> {
      return (await repo.organizationsOf(actor.userId)).flatMap((o) => {
        const role = access.effectiveRole(actor, o.id, o.role);
        return role ? [{ ...o, role }] : [];
      });
    },
    /** A login token acting in another organization of the same person, with that membership's role. */
    async tokenFor(actor: Actor, organizationId: string, address: string | null = null): Promise<OrganizationToken> {
      if (actor.apiKey) throw new AppError('FORBIDDEN', 'API keys act in their own organization only');
      const member = await repo.member(organizationId, actor.userId);
      if (!member) throw new AppError('FORBIDDEN', NOT_A_MEMBER);
      await enter?.(actor, organizationId, address);
      // The e-mail claim as login would write it: the current address, not the old token's.
      // The same session: ending it ends this token too.
      const { token, expiresAt } = await tokens.issue({ userId: actor.userId, tenantId: organizationId, email: member.email, sessionId: actor.sessionId });
      return { token, userId: actor.userId, organizationId, role: member.role, expiresAt };
    },
    async update(actor: Actor, input: { name?: string; slug?: string; plan?: string }): Promise<MemberOrganization> {
      const organizationId = actor.organizationId;
      const role = await access.roleIn(actor, organizationId);
      if (role !== 'owner') throw new AppError('FORBIDDEN', 'only an owner can change the organization');
      if (input.plan !== undefined && !isPlan(input.plan)) {
        throw validationFailed(`unknown plan "${input.plan}"; plans: ${Object.keys(PLANS).join(', ')}`, [{ path: 'plan', message: 'unknown plan' }]);
      }
      return { ...(await repo.update(organizationId, input)), role };
    },
    async members(actor: Actor): Promise<Member[]> {
      return repo.members(await access.resolveReadable(actor));
    },
    async addMember(actor: Actor, input: { email: string; role: Role }): Promise<Member> {
      const organizationId = await access.resolveManaging(actor);
      assertOutranks(await access.roleIn(actor, organizationId), input.role);
      const userId = await repo.userIdByEmail(input.email);
      if (!userId) throw notFound('user with this e-mail address (they must register first)');
      await repo.addMember(organizationId, userId, input.role);
      return memberOrFail(organizationId, userId);
    },
    async changeRole(actor: Actor, userId: string, role: Role): Promise<Member> {
      const organizationId = await access.resolveManaging(actor);
      const actorRole = await access.roleIn(actor, organizationId);
      const member = await memberOrFail(organizationId, userId);
      assertOutranks(actorRole, member.role);
      assertOutranks(actorRole, role);
      await repo.setRole(organizationId, userId, role);
      return memberOrFail(organizationId, userId);
    },
    async removeMember(actor: Actor, userId: string): Promise<void> {
      const organizationId = await access.resolveManaging(actor);
      const member = await memberOrFail(organizationId, userId);
      assertOutranks(await access.roleIn(actor, organizationId), member.role);
      await repo.removeMember(organizationId, userId);
    },
  };
}

export type OrganizationService = ReturnType<typeof createOrganizationService>;
