// Organization secrets: named values services use as {{secrets.NAME}} in their options.
// Everyone in the organization sees the names; admins and owners set and remove them. A
// value is sealed at once and never answered; a new value is re-sent to the agents of every
// service that uses it.
import { randomUUID } from 'node:crypto';
import type { SecretBox } from '../../crypto/secret-box.js';
import { AppError, notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import { ROLE_RANK, type OrganizationAccess } from '../organizations/organization-access.js';
import type { ServiceRecord } from '../services/service.entity.js';
import type { ServiceChangeListener } from '../services/services.service.js';
import type { OrgSecret, OrgSecretsRepository } from './org-secrets.repository.js';
import type { CreateSecretInput, UpdateSecretInput } from './org-secrets.schema.js';
import { findReferences } from './secret-references.js';

export interface OrgSecretView extends OrgSecret {
  usedBy: { id: string; name: string }[];
}

export interface OrgSecretsServiceDeps {
  secrets: OrgSecretsRepository;
  access: OrganizationAccess;
  box: SecretBox;
  findService(serviceId: string): Promise<ServiceRecord | null>;
  listener: ServiceChangeListener;
}

export function createOrgSecretsService({ secrets, access, box, findService, listener }: OrgSecretsServiceDeps) {
  /** The token's organization, when the actor is an admin or owner there. */
  const resolveAdministered = async (actor: Actor) => {
    const role = await access.roleIn(actor, actor.organizationId);
    if (ROLE_RANK[role] < ROLE_RANK.admin) throw new AppError('FORBIDDEN', `the ${role} role cannot manage secrets; admins and owners can`);
    return actor.organizationId;
  };
  const findIn = async (organizationId: string, id: string) => {
    const found = await secrets.find(organizationId, id);
    if (!found) throw notFound('secret');
    return found;
  };
  /** Which services refer to each secret name (only `name`, when given): one read of the services that mention it. */
  const usersByName = async (organizationId: string, name?: string) => {
    const users = new Map<string, { id: string; name: string }[]>();
    for (const service of await secrets.servicesMentioningSecrets(organizationId, name)) {
      for (const used of new Set(findReferences(service.options).map((r) => r.name))) {
        users.set(used, [...(users.get(used) ?? []), { id: service.id, name: service.name }]);
      }
    }
    return users;
  };
  const usersOf = async (secret: OrgSecret) => (await usersByName(secret.organizationId, secret.name)).get(secret.name) ?? [];
  const viewOf = async (secret: OrgSecret): Promise<OrgSecretView> => ({ ...secret, usedBy: await usersOf(secret) });

  return {
    async list(actor: Actor): Promise<OrgSecretView[]> {
      const organizationId = await access.resolveReadable(actor);
      const [found, users] = await Promise.all([secrets.list(organizationId), usersByName(organizationId)]);
      return found.map((s) => ({ ...s, usedBy: users.get(s.name) ?? [] }));
    },
    async get(actor: Actor, id: string): Promise<OrgSecretView> {
      return viewOf(await findIn(await access.resolveReadable(actor), id));
    },
    async create(actor: Actor, input: CreateSecretInput): Promise<OrgSecretView> {
      const organizationId = await resolveAdministered(actor);
      // No service can refer to a secret before it exists.
      return { ...(await secrets.insert({ id: randomUUID(), organizationId, name: input.name, sealedValue: box.seal(input.value) })), usedBy: [] };
    },
    async update(actor: Actor, id: string, input: UpdateSecretInput): Promise<OrgSecretView> {
      const organizationId = await resolveAdministered(actor);
      const current = await findIn(organizationId, id);
      if (input.name !== undefined && input.name !== current.name) {
        throw validationFailed('a secret cannot be renamed', [{ path: 'name', message: `stays "${current.name}"; create a secret of the new name instead` }]);
      }
      if (input.value === undefined) return viewOf(current);
      const usedBy = await usersOf(current);
      const updated = await secrets.replaceValue(id, box.seal(input.value), usedBy.map((s) => s.id));
      // Each gets a new config version above, so its agents take the new value.
      for (const service of await Promise.all(usedBy.map((s) => findService(s.id)))) if (service) listener.serviceUpserted(service);
      return { ...updated, usedBy };
    },
    async remove(actor: Actor, id: string): Promise<void> {
      const organizationId = await resolveAdministered(actor);
      const current = await findIn(organizationId, id);
      const usedBy = await usersOf(current);
      if (usedBy.length > 0) {
        throw new AppError('CONFLICT', `secret "${current.name}" is used by ${usedBy.length === 1 ? 'service' : 'services'} ${usedBy.map((s) => `"${s.name}"`).join(', ')}; remove the references first`, {
          details: usedBy.map((s) => ({ path: `used_by.${s.id}`, message: `used by service "${s.name}"` })),
        });
      }
      await secrets.delete(id);
    },
  };
}

export type OrgSecretsService = ReturnType<typeof createOrgSecretsService>;
