// The acting organization and its members (API.md roles): everyone reads; admins manage
// members below their own rank; only owners rename the organization or change its plan.
import { AppError, notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../../http/authenticate.js';
import type { Role } from './membership.entity.js';
import { ROLE_RANK, type OrganizationAccess } from './organization-access.js';
import type { Member, OrganizationAdminRepository, OrganizationView } from './organization-admin.repository.js';
import { isPlan, PLANS } from './plans.js';

export function createOrganizationService(repo: OrganizationAdminRepository, access: OrganizationAccess) {
  const assertOutranks = (actorRole: Role, role: Role) => {
    if (ROLE_RANK[role] > ROLE_RANK[actorRole]) throw new AppError('FORBIDDEN', `a ${actorRole} cannot grant or change the ${role} role`);
  };
  const memberOrFail = async (organizationId: string, userId: string) => {
    const member = await repo.member(organizationId, userId);
    if (!member) throw notFound('member');
    return member;
  };

  return {
    async get(actor: Actor): Promise<OrganizationView> {
      const organization = await repo.find(await access.resolveReadable(actor));
      if (!organization) throw notFound('organization');
      return organization;
    },
    async update(actor: Actor, input: { name?: string; slug?: string; plan?: string }): Promise<OrganizationView> {
      const organizationId = actor.organizationId;
      if ((await access.roleIn(actor, organizationId)) !== 'owner') throw new AppError('FORBIDDEN', 'only an owner can change the organization');
      if (input.plan !== undefined && !isPlan(input.plan)) {
        throw validationFailed(`unknown plan "${input.plan}"; plans: ${Object.keys(PLANS).join(', ')}`, [{ path: 'plan', message: 'unknown plan' }]);
      }
      return repo.update(organizationId, input);
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
