import { z } from 'zod';
import type { AlertRule } from './rule.js';
import { readOnly } from '../../http/validate.js';
import { ServiceSelectorSchema } from '../services/service-selector.js';

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
  // Instead of service_id: every service these matchers select, including services created later.
  selector: ServiceSelectorSchema.nullable().optional(),
  recovery_threshold: z
    .number({ message: 'recovery_threshold must be an integer' })
    .int('recovery_threshold must be an integer')
    .min(1, 'recovery_threshold must be at least 1')
    .max(20, 'recovery_threshold must be at most 20')
    .optional(),
  repeat_interval_minutes: z
    .number({ message: 'repeat_interval_minutes must be an integer' })
    .int('repeat_interval_minutes must be an integer')
    .min(1, 'repeat_interval_minutes must be at least 1')
    .max(10_080, 'repeat_interval_minutes must be at most 10080 (a week)')
    .nullable()
    .optional(),
  no_data: z.boolean({ message: 'no_data must be true or false' }).optional(),
  agent_offline: z.boolean({ message: 'agent_offline must be true or false' }).optional(),
}).refine((c) => Buffer.byteLength(JSON.stringify(c)) <= MAX_CONDITION_BYTES, `condition must be at most ${MAX_CONDITION_BYTES / 1024} KiB of JSON`);

const severity = z.enum(['critical', 'warning', 'info'], { message: 'severity must be critical, warning or info' });
const name = z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200);

/** A rule covers one service (service_id), the services a selector picks, or all: never both. */
export const ONE_SCOPE = 'a rule takes service_id or condition.selector, not both';
// Fresh options for each schema: zod takes them over.
const oneScopeIssue = () => ({ message: ONE_SCOPE, path: ['condition', 'selector'] });
const oneScope = (r: { service_id?: string | null; condition?: { selector?: unknown } }) => !(r.service_id && r.condition?.selector);

export const CreateRuleInput = z
  .strictObject({
    service_id: uuid('service_id').nullable().optional(),
    name,
    severity,
    condition: RuleCondition.default({}),
    enabled: z.boolean().default(true),
  })
  .refine(oneScope, oneScopeIssue());
export type CreateRuleInput = z.infer<typeof CreateRuleInput>;

export const UpdateRuleInput = z.strictObject({
  ...readOnly('id', 'organization_id', 'created_at', 'updated_at'),
  service_id: uuid('service_id').nullable().optional(),
  name: name.optional(),
  severity: severity.optional(),
  condition: RuleCondition.optional(),
  enabled: z.boolean().optional(),
}).refine(oneScope, oneScopeIssue());
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
    service_id: z.uuid().nullable().meta({ description: 'null: the services condition.selector picks, or every service of the organization' }),
    name: z.string(),
    severity,
    condition: z.record(z.string(), z.unknown()).meta({ description: 'As sent: statuses, consecutive_failures, response_time_ms_above, min_failing_locations, escalation_policy_id, channel_ids, team_ids, selector, recovery_threshold, repeat_interval_minutes, no_data, agent_offline; unknown keys are kept' }),
    enabled: z.boolean(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'AlertRule' });
