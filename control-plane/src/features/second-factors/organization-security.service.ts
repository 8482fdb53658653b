// An organization's rule that its members sign in with a second factor (admins set it). It is
// applied at sign-in (mfa-sign-in.ts); SSO sign-ins pass, the identity provider being the factor.
import type { AuditTrail } from '../audit/audit-trail.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { OrganizationSecurityRepository } from './organization-security.repository.js';

export interface OrganizationSecurity {
  requireMfa: boolean;
}

export function createOrganizationSecurityService(repository: OrganizationSecurityRepository, access: OrganizationAccess, audit: AuditTrail) {
  return {
    async get(actor: Actor): Promise<OrganizationSecurity> {
      return { requireMfa: await repository.requiresMfa(await access.resolveManaging(actor)) };
    },
    async update(actor: Actor, changes: { require_mfa: boolean }, address: string): Promise<OrganizationSecurity> {
      const organizationId = await access.resolveManaging(actor);
      const before = await repository.requiresMfa(organizationId);
      await repository.setRequireMfa(organizationId, changes.require_mfa);
      await audit.record({
        organizationId,
        actor: actor.apiKey ? { apiKeyId: actor.apiKey.id } : { userId: actor.userId, email: actor.email },
        address,
        action: 'update',
        resource: 'organization_security',
        resourceId: organizationId,
        before: { require_mfa: before },
        after: { require_mfa: changes.require_mfa },
      });
      return { requireMfa: changes.require_mfa };
    },
  };
}

export type OrganizationSecurityService = ReturnType<typeof createOrganizationSecurityService>;
