import { crudRoutes } from '../../http/crud-routes.js';
import { CreateRuleInput, ListRulesQuery, UpdateRuleInput, toRuleJson } from './rules.schema.js';
import type { RulesService } from './rules.service.js';

export function rulesRoutes(rules: RulesService) {
  return crudRoutes({
    prefix: '/alert-rules',
    what: 'alert rule',
    service: rules,
    listQuery: ListRulesQuery,
    createInput: CreateRuleInput,
    updateInput: UpdateRuleInput,
    toJson: toRuleJson,
  });
}
