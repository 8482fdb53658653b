import type { EntityManager } from '@mikro-orm/postgresql';
import type { PooledSql } from '../../db/pooled-sql.js';
import type { Role } from './membership.entity.js';
import { OrganizationEntity } from './organization.entity.js';

/** A standing permission to read an organization: a user's membership, maybe through an API key. */
export interface Grant {
  userId: string;
  organizationId: string;
  apiKeyId: string | null;
  /** The sign-in session of a JWT; null for API keys and tokens minted outside sign-in. */
  sessionId: string | null;
}

/** Why a grant no longer holds. */
export type GrantEnd = 'membership_ended' | 'api_key_revoked' | 'session_ended';

export interface OrganizationsRepository {
  roleOf(userId: string, organizationId: string): Promise<Role | null>;
  findIdBySlug(slug: string): Promise<string | null>;
  /** For each grant, null while it holds, or why it ended; one statement for all of them. */
  endedGrants(grants: Grant[]): Promise<(GrantEnd | null)[]>;
}

export function createOrganizationsRepository(em: () => EntityManager, sql: PooledSql): OrganizationsRepository {
  // Asked on most requests: prepared on a pooled connection, below the ORM, whose fork and
  // query builder cost more than the statement.
  const roleOf = sql.prepared<{ role: Role }>('member_role', 'select role from memberships where user_id = $1 and organization_id = $2');
  return {
    async roleOf(userId, organizationId) {
      const [row] = await roleOf([userId, organizationId]);
      return row?.role ?? null;
    },
    async findIdBySlug(slug) {
      const org = await em().findOne(OrganizationEntity, { slug }, { fields: ['id'] });
      return org?.id ?? null;
    },
    async endedGrants(grants) {
      const ended: (GrantEnd | null)[] = grants.map(() => null);
      if (grants.length === 0) return ended;
      // A deleted user leaves no memberships (cascade), so "membership ended" covers it too.
      const rows = await em().execute<{ i: number; reason: GrantEnd }[]>(
        `select g.i,
                case when g.api_key_id is not null and not exists (select 1 from api_keys k where k.id = g.api_key_id and (k.expires_at is null or k.expires_at > now()))
                     then 'api_key_revoked'
                     when not exists (select 1 from memberships m where m.user_id = g.user_id and m.organization_id = g.organization_id)
                     then 'membership_ended'
                     else 'session_ended' end as reason
           from unnest(?::int[], ?::uuid[], ?::uuid[], ?::uuid[], ?::uuid[]) as g (i, user_id, organization_id, api_key_id, session_id)
          where not exists (select 1 from memberships m where m.user_id = g.user_id and m.organization_id = g.organization_id)
             or (g.api_key_id is not null and not exists (select 1 from api_keys k where k.id = g.api_key_id and (k.expires_at is null or k.expires_at > now())))
             or (g.session_id is not null and not exists (select 1 from sessions s where s.id = g.session_id and s.ended_at is null and s.expires_at > now()))`,
        [grants.map((_, i) => i), grants.map((g) => g.userId), grants.map((g) => g.organizationId), grants.map((g) => g.apiKeyId), grants.map((g) => g.sessionId)],
      );
      for (const row of rows) ended[row.i] = row.reason;
      return ended;
    },
  };
}
