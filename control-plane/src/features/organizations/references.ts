// Whether ids given in a request name things of the organization (else: 404, API.md).
import type { EntityManager } from '@mikro-orm/postgresql';

export interface References {
  servicesExist(organizationId: string, serviceIds: string[]): Promise<boolean>;
  channelsExist(organizationId: string, channelIds: string[]): Promise<boolean>;
  teamsExist(organizationId: string, teamIds: string[]): Promise<boolean>;
  policyExists(organizationId: string, policyId: string): Promise<boolean>;
  alertExists(organizationId: string, alertId: string): Promise<boolean>;
  statusPagesExist(organizationId: string, pageIds: string[]): Promise<boolean>;
}

export function createReferences(em: () => EntityManager): References {
  const allOwned = async (table: string, organizationId: string, ids: string[]) => {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return true;
    const [row] = await em().execute<{ n: string }[]>(
      `select count(*) as n from ${table} where organization_id = ? and id in (${unique.map(() => '?').join(',')})`,
      [organizationId, ...unique],
    );
    return Number(row?.n) === unique.length;
  };
  return {
    servicesExist: (org, ids) => allOwned('services', org, ids),
    channelsExist: (org, ids) => allOwned('notification_channels', org, ids),
    teamsExist: (org, ids) => allOwned('teams', org, ids),
    policyExists: (org, id) => allOwned('escalation_policies', org, [id]),
    alertExists: (org, id) => allOwned('alerts', org, [id]),
    statusPagesExist: (org, ids) => allOwned('status_pages', org, ids),
  };
}
