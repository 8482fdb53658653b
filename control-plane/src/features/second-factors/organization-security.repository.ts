// An organization's security rules kept on its row: whether members need a second factor.
import type { EntityManager } from '@mikro-orm/postgresql';

export interface OrganizationSecurityRepository {
  requiresMfa(organizationId: string): Promise<boolean>;
  setRequireMfa(organizationId: string, required: boolean): Promise<void>;
}

export function createOrganizationSecurityRepository(em: () => EntityManager): OrganizationSecurityRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async requiresMfa(organizationId) {
      const [row] = await run('select require_mfa from organizations where id = ?', [organizationId]);
      return Boolean(row?.require_mfa);
    },
    async setRequireMfa(organizationId, required) {
      await run('update organizations set require_mfa = ?, updated_at = now() where id = ?', [required, organizationId]);
    },
  };
}
