// Maintenance windows: while one covers a service, checks run and statuses change, but no
// alert opens and nothing is notified.
import { randomUUID } from 'node:crypto';
import { notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { References } from '../organizations/references.js';
import type { CreateWindowInput, UpdateWindowInput } from './maintenance.schema.js';
import type { MaintenanceRepository, MaintenanceWindow } from './maintenance.repository.js';

export function createMaintenanceService(windows: MaintenanceRepository, access: OrganizationAccess, references: References) {
  const checkServices = async (organizationId: string, ids: string[] | undefined) => {
    if (ids?.length && !(await references.servicesExist(organizationId, ids))) throw notFound('service');
  };
  const findIn = async (organizationId: string, id: string) => {
    const found = await windows.find(organizationId, id);
    if (!found) throw notFound('maintenance window');
    return found;
  };

  return {
    async list(actor: Actor): Promise<MaintenanceWindow[]> {
      return windows.list(await access.resolveReadable(actor));
    },
    async get(actor: Actor, id: string): Promise<MaintenanceWindow> {
      return findIn(await access.resolveReadable(actor), id);
    },
    async create(actor: Actor, input: CreateWindowInput): Promise<MaintenanceWindow> {
      const organizationId = await access.resolveWritable(actor);
      await checkServices(organizationId, input.service_ids);
      return windows.insert({ id: randomUUID(), organizationId, name: input.name, startsAt: new Date(input.starts_at), endsAt: new Date(input.ends_at), serviceIds: input.service_ids });
    },
    async update(actor: Actor, id: string, input: UpdateWindowInput): Promise<MaintenanceWindow> {
      const organizationId = await access.resolveWritable(actor);
      const current = await findIn(organizationId, id);
      await checkServices(organizationId, input.service_ids);
      const startsAt = input.starts_at ? new Date(input.starts_at) : current.startsAt;
      const endsAt = input.ends_at ? new Date(input.ends_at) : current.endsAt;
      if (endsAt <= startsAt) throw validationFailed('ends_at must be after starts_at', [{ path: 'ends_at', message: 'must be after starts_at' }]);
      return windows.update(id, { name: input.name ?? current.name, startsAt, endsAt, serviceIds: input.service_ids ?? current.serviceIds });
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const organizationId = await access.resolveWritable(actor);
      await findIn(organizationId, id);
      await windows.delete(id);
    },
  };
}

export type MaintenanceService = ReturnType<typeof createMaintenanceService>;
