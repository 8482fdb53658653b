// Who a provider's answer lets in, and with which role: pure decisions on the claims.
import { ROLE_RANK } from '../organizations/organization-access.js';
import type { MappedRole, SsoSettings } from './sso-settings.repository.js';

export type Admission = { allowed: true; role: MappedRole } | { allowed: false; because: 'domain' | 'groups'; reason: string };

/**
 * The groups in `claim` of the claims: a list of strings, or one string. A dotted name reads a
 * nested claim (Keycloak's `realm_access.roles`) when no claim has that name itself.
 */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  let value: unknown = claims[claim];
  if (value === undefined && claim.includes('.')) {
    value = claim.split('.').reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), claims);
  }
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((g): g is string => typeof g === 'string') : [];
}

/** The highest role the person's groups map to (names compared exactly), else the default role. */
export function mappedRole(settings: Pick<SsoSettings, 'roleMapping' | 'defaultRole'>, groups: string[]): MappedRole | null {
  const held = new Set(groups);
  let best: MappedRole | null = null;
  for (const { group, role } of settings.roleMapping) {
    if (held.has(group) && (best === null || ROLE_RANK[role] > ROLE_RANK[best])) best = role;
  }
  return best ?? settings.defaultRole;
}

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/** Whether the person may be in the organization, and as what. */
export function admission(settings: Pick<SsoSettings, 'roleMapping' | 'defaultRole' | 'allowedDomains' | 'groupsClaim'>, email: string, claims: Record<string, unknown>): Admission {
  const domain = emailDomain(email);
  if (!settings.allowedDomains.includes(domain)) return { allowed: false, because: 'domain', reason: `the e-mail domain "${domain}" is not allowed for this organization` };
  const role = mappedRole(settings, groupsOf(claims, settings.groupsClaim));
  if (!role) return { allowed: false, because: 'groups', reason: 'none of your groups is allowed in this organization' };
  return { allowed: true, role };
}
