// Persistence of services. The plan cap is enforced under a row lock on the organization,
// so concurrent creates cannot overshoot it.
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../errors.js';
import type { Role } from '../organizations/membership.entity.js';
import { OrganizationEntity } from '../organizations/organization.entity.js';
import { planLimits } from '../organizations/plans.js';
import { ServiceEntity, type ServiceRecord } from './service.entity.js';

export type NewService = Omit<ServiceRecord, 'status' | 'lastCheckedAt' | 'lastResponseTimeMs' | 'configVersion' | 'createdAt' | 'updatedAt'>;
export type ServiceChanges = Partial<Omit<ServiceRecord, 'id' | 'organizationId' | 'createdAt' | 'updatedAt' | 'configVersion'>>;

export interface ServiceFilters {
  status?: string;
  tag?: string;
  checkType?: string;
}

export interface ServicesRepository {
  /** Inserts unless the organization's plan is full (PLAN_LIMIT_REACHED). */
  insertWithinPlan(service: NewService): Promise<ServiceRecord>;
  /** The service and the user's role in its organization; null when not a member. */
  findForUser(serviceId: string, userId: string): Promise<{ service: ServiceRecord; role: Role } | null>;
  list(organizationId: string, filters: ServiceFilters): Promise<ServiceRecord[]>;
  update(serviceId: string, changes: ServiceChanges, bumpVersion: boolean): Promise<ServiceRecord>;
  delete(serviceId: string): Promise<void>;
  /** Every service checked from `location`, across organizations (agent snapshots). */
  listForLocation(location: string): Promise<ServiceRecord[]>;
  findById(serviceId: string): Promise<ServiceRecord | null>;
}

export function createServicesRepository(em: () => EntityManager): ServicesRepository {
  return {
    async insertWithinPlan(service) {
      return em().transactional(async (tx) => {
        const org = await tx.findOneOrFail(OrganizationEntity, service.organizationId, { lockMode: LockMode.PESSIMISTIC_WRITE });
        const { maxServices } = planLimits(org.plan);
        if (maxServices !== null) {
          const count = await tx.count(ServiceEntity, { organizationId: service.organizationId });
          if (count >= maxServices) {
            throw new AppError(
              'PLAN_LIMIT_REACHED',
              `the ${org.plan} plan allows at most ${maxServices} services; delete one or upgrade the plan`,
            );
          }
        }
        const record = tx.create(ServiceEntity, { ...service, status: null, lastCheckedAt: null, lastResponseTimeMs: null, configVersion: 1 });
        await tx.flush();
        return record;
      });
    },

    async findForUser(serviceId, userId) {
      const rows = await em()
        .getConnection()
        .execute<{ role: Role }[]>(
          'select m.role from services s join memberships m on m.organization_id = s.organization_id and m.user_id = ? where s.id = ?',
          [userId, serviceId],
        );
      const role = rows[0]?.role;
      if (!role) return null;
      const service = await em().findOne(ServiceEntity, serviceId);
      return service && { service, role };
    },

    async list(organizationId, filters) {
      const where: Record<string, unknown> = { organizationId };
      if (filters.status) where.status = filters.status;
      if (filters.checkType) where.checkType = filters.checkType;
      if (filters.tag) where.tags = { $contains: [filters.tag] };
      return em().find(ServiceEntity, where, { orderBy: { createdAt: 'asc', id: 'asc' } });
    },

    async update(serviceId, changes, bumpVersion) {
      // The row lock keeps concurrent edits from handing out the same config version.
      return em().transactional(async (tx) => {
        const service = await tx.findOneOrFail(ServiceEntity, serviceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
        tx.assign(service, changes);
        if (bumpVersion) service.configVersion = service.configVersion + 1;
        return service;
      });
    },

    async delete(serviceId) {
      await em().nativeDelete(ServiceEntity, { id: serviceId });
    },

    async listForLocation(location) {
      return em().find(ServiceEntity, { locations: { $contains: [location] } }, { orderBy: { createdAt: 'asc' } });
    },

    async findById(serviceId) {
      return em().findOne(ServiceEntity, serviceId);
    },
  };
}
