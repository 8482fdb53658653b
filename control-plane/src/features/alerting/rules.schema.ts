import { z } from 'zod';
import type { AlertRule } from './rule.js';
import { readOnly } from '../../http/validate.js';

const uuid = (field: string) => z.uuid({ message: `${field} must be a UUID` });

/** Room for every known key and a few extensions; an unknown key is kept, not a store. */
const MAX_CONDITION_BYTES = 8 * 1024;

// Known keys are checked; unknown keys are kept (the condition is extensible, API.md).
export const RuleCondition = z.looseObject({
  statuses: z
    .array(z.enum(['RED', 'YELLOW', 'GREEN'], { message: 'statuses holds RED, YELLOW or GREEN' }))
    .min(1, 'statuses must not be empty')
    .transform((s) => [...new Set(s)])
    .optional(),
  consecutive_failures: z.number({ message: 'consecutive_failures must be an integer' }).int().min(1).max(1000).optional(),
  response_time_ms_above: z.number({ message: 'response_time_ms_above must be a number' }).min(0).nullable().optional(),
  min_failing_locations: z.number().int().min(1).max(50).nullable().optional(),
  escalation_policy_id: uuid('escalation_policy_id').nullable().optional(),
  channel_ids: z.array(uuid('each channel id')).max(50).nullable().optional(),
  // Every member of these teams gets an e-mail.
  team_ids: z.array(uuid('each team id')).max(50).nullable().optional(),
}).refine((c) => Buffer.byteLength(JSON.stringify(c)) <= MAX_CONDITION_BYTES, `condition must be at most ${MAX_CONDITION_BYTES / 1024} KiB of JSON`);

const severity = z.enum(['critical', 'warning', 'info'], { message: 'severity must be critical, warning or info' });
const name = z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200);

export const CreateRuleInput = z.strictObject({
  service_id: uuid('service_id').nullable().optional(),
  name,
  severity,
  condition: RuleCondition.default({}),
  enabled: z.boolean().default(true),
});
export type CreateRuleInput = z.infer<typeof CreateRuleInput>;

export const UpdateRuleInput = z.strictObject({
  ...readOnly('id', 'organization_id', 'created_at', 'updated_at'),
  service_id: uuid('service_id').nullable().optional(),
  name: name.optional(),
  severity: severity.optional(),
  condition: RuleCondition.optional(),
  enabled: z.boolean().optional(),
});
export type UpdateRuleInput = z.infer<typeof UpdateRuleInput>;

export const ListRulesQuery = z.strictObject({ service_id: uuid('service_id').optional() });

export function toRuleJson(r: AlertRule) {
  return {
    id: r.id,
    organization_id: r.organizationId,
    service_id: r.serviceId,
    name: r.name,
    severity: r.severity,
    condition: r.condition,
    enabled: r.enabled,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export const RuleJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    service_id: z.uuid().nullable().meta({ description: 'null: every service of the organization' }),
    name: z.string(),
    severity,
    condition: z.record(z.string(), z.unknown()).meta({ description: 'As sent: statuses, consecutive_failures, response_time_ms_above, min_failing_locations, escalation_policy_id, channel_ids, team_ids; unknown keys are kept' }),
    enabled: z.boolean(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'AlertRule' });
