// An organization's single sign-on settings and the e-mail domains it claims.
import type { EntityManager } from '@mikro-orm/postgresql';
import { jsonColumn } from '../../db/json-column.js';
import { isUniqueViolation } from '../../db/pg-errors.js';
import { AppError } from '../../errors.js';
import type { Role } from '../organizations/membership.entity.js';
import type { MAPPED_ROLES } from './sso.schema.js';

export type MappedRole = (typeof MAPPED_ROLES)[number];

export interface SsoSettings {
  organizationId: string;
  issuer: string;
  clientId: string;
  clientSecretSealed: string;
  allowedDomains: string[];
  groupsClaim: string;
  roleMapping: { group: string; role: MappedRole }[];
  defaultRole: MappedRole | null;
  required: boolean;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type NewSsoSettings = Omit<SsoSettings, 'createdAt' | 'updatedAt'>;

export interface SsoOrganization {
  id: string;
  slug: string;
}

export interface SsoSettingsRepository {
  find(organizationId: string): Promise<SsoSettings | null>;
  /** Creates or replaces them; CONFLICT when another organization claims one of the domains. */
  save(settings: NewSsoSettings): Promise<SsoSettings>;
  delete(organizationId: string): Promise<boolean>;
  organizationBySlug(slug: string): Promise<SsoOrganization | null>;
  slugOf(organizationId: string): Promise<string | null>;
  /** The organization whose enabled single sign-on claims the domain. */
  enabledByDomain(domain: string): Promise<SsoOrganization | null>;
  roleOf(userId: string, organizationId: string): Promise<Role | null>;
}

const domainTaken = (domain: string) => new AppError('CONFLICT', `the domain "${domain}" is claimed by another organization's single sign-on`);

export function createSsoSettingsRepository(em: () => EntityManager): SsoSettingsRepository {
  const run = (sql: string, params: unknown[], tx: EntityManager = em()) => tx.execute<Record<string, unknown>[]>(sql, params);
  const find = async (organizationId: string, tx?: EntityManager) => {
    const [row] = await run(
      `select s.*, coalesce((select json_agg(d.domain order by d.domain) from sso_domains d where d.organization_id = s.organization_id), '[]') as domains
         from sso_settings s where s.organization_id = ?`,
      [organizationId],
      tx,
    );
    return row ? fromRow(row) : null;
  };
  return {
    find: (organizationId) => find(organizationId),
    async save(s) {
      try {
        return await em().transactional(async (tx) => {
          const [taken] = await run('select domain from sso_domains where domain in (select jsonb_array_elements_text(?::jsonb)) and organization_id <> ? limit 1', [JSON.stringify(s.allowedDomains), s.organizationId], tx);
          if (taken) throw domainTaken(String(taken.domain));
          await run(
            `insert into sso_settings (organization_id, issuer, client_id, client_secret_sealed, groups_claim, role_mapping, default_role, required, enabled)
             values (?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?)
             on conflict (organization_id) do update set issuer = excluded.issuer, client_id = excluded.client_id, client_secret_sealed = excluded.client_secret_sealed,
               groups_claim = excluded.groups_claim, role_mapping = excluded.role_mapping, default_role = excluded.default_role, required = excluded.required,
               enabled = excluded.enabled, updated_at = now()`,
            [s.organizationId, s.issuer, s.clientId, s.clientSecretSealed, s.groupsClaim, JSON.stringify(s.roleMapping), s.defaultRole, s.required, s.enabled],
            tx,
          );
          await run('delete from sso_domains where organization_id = ?', [s.organizationId], tx);
          await run('insert into sso_domains (domain, organization_id) select jsonb_array_elements_text(?::jsonb), ?', [JSON.stringify(s.allowedDomains), s.organizationId], tx);
          return (await find(s.organizationId, tx))!;
        });
      } catch (err) {
        // Another organization claimed it between the check and the insert.
        if (isUniqueViolation(err, 'sso_domains_pkey')) throw domainTaken(s.allowedDomains.join(', '));
        throw err;
      }
    },
    async delete(organizationId) {
      // Its domains go with it (on delete cascade).
      const rows = await run('delete from sso_settings where organization_id = ? returning organization_id', [organizationId]);
      return rows.length > 0;
    },
    async organizationBySlug(slug) {
      const [row] = await run('select id, slug from organizations where slug = ?', [slug]);
      return row ? { id: String(row.id), slug: String(row.slug) } : null;
    },
    async slugOf(organizationId) {
      const [row] = await run('select slug from organizations where id = ?', [organizationId]);
      return row ? String(row.slug) : null;
    },
    async enabledByDomain(domain) {
      const [row] = await run(
        'select o.id, o.slug from sso_domains d join sso_settings s on s.organization_id = d.organization_id join organizations o on o.id = d.organization_id where d.domain = ? and s.enabled',
        [domain],
      );
      return row ? { id: String(row.id), slug: String(row.slug) } : null;
    },
    async roleOf(userId, organizationId) {
      const [row] = await run('select role from memberships where user_id = ? and organization_id = ?', [userId, organizationId]);
      return row ? (row.role as Role) : null;
    },
  };
}

function fromRow(r: Record<string, unknown>): SsoSettings {
  return {
    organizationId: String(r.organization_id),
    issuer: String(r.issuer),
    clientId: String(r.client_id),
    clientSecretSealed: String(r.client_secret_sealed),
    allowedDomains: jsonColumn<string[]>(r.domains),
    groupsClaim: String(r.groups_claim),
    roleMapping: jsonColumn<SsoSettings['roleMapping']>(r.role_mapping),
    defaultRole: (r.default_role as MappedRole | null) ?? null,
    required: Boolean(r.required),
    enabled: Boolean(r.enabled),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}

