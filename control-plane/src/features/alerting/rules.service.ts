// Alert rules (API.md "Alert rules"). A rule with a service covers that service; one with a
// selector the services it picks; one with neither every service of the organization.
// Referenced ids must be the org's own.
import { randomUUID } from 'node:crypto';
import { notFound, validationFailed } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { References } from '../organizations/references.js';
import type { AlertRule, RuleCondition } from './rule.js';
import { ONE_SCOPE, type CreateRuleInput, type UpdateRuleInput } from './rules.schema.js';
import type { RulesRepository } from './rules.repository.js';

export interface RulesServiceDeps {
  rules: RulesRepository;
  access: OrganizationAccess;
  /** Drops the organization's cached rules on every replica before the change is answered. */
  rulesChanged(organizationId: string): Promise<void>;
  references: References;
}

export function createRulesService({ rules, access, rulesChanged, references }: RulesServiceDeps) {
  async function checkReferences(organizationId: string, serviceId: string | null | undefined, condition: RuleCondition | undefined) {
    if (serviceId && !(await references.servicesExist(organizationId, [serviceId]))) throw notFound('service');
    if (condition?.channel_ids?.length && !(await references.channelsExist(organizationId, condition.channel_ids))) throw notFound('notification channel');
    if (condition?.team_ids?.length && !(await references.teamsExist(organizationId, condition.team_ids))) throw notFound('team');
    if (condition?.escalation_policy_id && !(await references.policyExists(organizationId, condition.escalation_policy_id))) throw notFound('escalation policy');
  }

  async function findWritable(actor: Actor, ruleId: string): Promise<AlertRule> {
    const organizationId = await access.resolveWritable(actor);
    const rule = await rules.find([organizationId], ruleId);
    if (!rule) throw notFound('alert rule');
    return rule;
  }

  return {
    async create(actor: Actor, input: CreateRuleInput): Promise<AlertRule> {
      const organizationId = await access.resolveWritable(actor);
      await checkReferences(organizationId, input.service_id, input.condition);
      const rule = await rules.insert({
        id: randomUUID(),
        organizationId,
        serviceId: input.service_id ?? null,
        name: input.name,
        severity: input.severity,
        condition: input.condition,
        enabled: input.enabled,
      });
      await rulesChanged(organizationId);
      return rule;
    },

    async list(actor: Actor, query: { service_id?: string }): Promise<AlertRule[]> {
      const organizationId = await access.resolveReadable(actor);
      return rules.list(organizationId, query.service_id);
    },

    async get(actor: Actor, ruleId: string): Promise<AlertRule> {
      const rule = await rules.find([await access.resolveReadable(actor)], ruleId);
      if (!rule) throw notFound('alert rule');
      return rule;
    },

    async update(actor: Actor, ruleId: string, input: UpdateRuleInput): Promise<AlertRule> {
      const current = await findWritable(actor, ruleId);
      const serviceId = input.service_id !== undefined ? input.service_id : current.serviceId;
      if (serviceId && (input.condition ?? current.condition).selector) throw validationFailed(ONE_SCOPE, [{ path: 'condition.selector', message: ONE_SCOPE }]);
      await checkReferences(current.organizationId, input.service_id, input.condition);
      const updated = await rules.update(ruleId, {
        ...(input.service_id !== undefined ? { serviceId: input.service_id } : {}),
        name: input.name,
        severity: input.severity,
        condition: input.condition,
        enabled: input.enabled,
      });
      await rulesChanged(current.organizationId);
      return updated;
    },

    async remove(actor: Actor, ruleId: string): Promise<void> {
      const current = await findWritable(actor, ruleId);
      await rules.delete(ruleId);
      await rulesChanged(current.organizationId);
    },
  };
}

export type RulesService = ReturnType<typeof createRulesService>;
