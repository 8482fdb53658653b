// Escalation policies: ordered steps {delay_minutes, channel_ids, team_ids} and `repeat`. While
// an alert stays firing, each step's channels and teams hear about it when its delay has passed.
import { randomUUID } from 'node:crypto';
import { notFound } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { References } from '../organizations/references.js';
import type { CreatePolicyInput, UpdatePolicyInput } from './escalation.schema.js';
import type { EscalationRepository } from './escalation.repository.js';
import type { EscalationPolicy, EscalationStep } from './policy.js';

export function createEscalationService(policies: EscalationRepository, access: OrganizationAccess, references: References) {
  const checkTargets = async (organizationId: string, steps: EscalationStep[] | undefined) => {
    if (steps && !(await references.channelsExist(organizationId, steps.flatMap((s) => s.channel_ids)))) throw notFound('notification channel');
    if (steps && !(await references.teamsExist(organizationId, steps.flatMap((s) => s.team_ids ?? [])))) throw notFound('team');
  };
  const findIn = async (organizationId: string, id: string) => {
    const policy = await policies.find(organizationId, id);
    if (!policy) throw notFound('escalation policy');
    return policy;
  };
  return {
    async list(actor: Actor): Promise<EscalationPolicy[]> {
      return policies.list(await access.resolveReadable(actor));
    },
    async get(actor: Actor, id: string): Promise<EscalationPolicy> {
      return findIn(await access.resolveReadable(actor), id);
    },
    async create(actor: Actor, input: CreatePolicyInput): Promise<EscalationPolicy> {
      const organizationId = await access.resolveWritable(actor);
      await checkTargets(organizationId, input.steps);
      return policies.insert({ id: randomUUID(), organizationId, name: input.name, steps: input.steps, repeat: input.repeat });
    },
    async update(actor: Actor, id: string, input: UpdatePolicyInput): Promise<EscalationPolicy> {
      const organizationId = await access.resolveWritable(actor);
      const current = await findIn(organizationId, id);
      await checkTargets(organizationId, input.steps);
      return policies.update(id, { name: input.name ?? current.name, steps: input.steps ?? current.steps, repeat: input.repeat ?? current.repeat });
    },
    async remove(actor: Actor, id: string): Promise<void> {
      await findIn(await access.resolveWritable(actor), id);
      await policies.delete(id);
    },
  };
}

export type EscalationService = ReturnType<typeof createEscalationService>;
