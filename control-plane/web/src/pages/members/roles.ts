// Roles as the API ranks them: a person grants, changes and removes only roles up to their own.
import type { Role } from '../../api/types';

export const ROLES: Role[] = ['viewer', 'member', 'admin', 'owner'];

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export const ROLE_HELP: Record<Role, string> = {
  viewer: 'reads everything',
  member: 'also changes services, rules, alerts and channels',
  admin: 'also manages members, teams, API keys and agents',
  owner: 'also the organization and its plan',
};

/** The roles `own` may hand out: never above itself (only owners make owners). */
export function assignableRoles(own: Role | undefined): Role[] {
  return own ? ROLES.filter((r) => RANK[r] <= RANK[own]) : [];
}

export function outranks(own: Role | undefined, other: Role): boolean {
  return own !== undefined && RANK[other] <= RANK[own];
}
