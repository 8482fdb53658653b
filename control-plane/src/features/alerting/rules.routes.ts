import { crudOperations, crudRoutes } from '../../http/crud-routes.js';
import { CreateRuleInput, ListRulesQuery, RuleJson, UpdateRuleInput, toRuleJson } from './rules.schema.js';
import type { RulesService } from './rules.service.js';

const resource = { prefix: '/alert-rules', what: 'alert rule', listQuery: ListRulesQuery, createInput: CreateRuleInput, updateInput: UpdateRuleInput };

// An unknown or foreign service_id in a body is a 404.
export const rulesOperations = crudOperations({ ...resource, tag: 'Alert rules', item: RuleJson, errors: [404] });

export function rulesRoutes(rules: RulesService) {
  return crudRoutes({ ...resource, service: rules, toJson: toRuleJson });
}
