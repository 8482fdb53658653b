import { crudRoutes, NoQuery } from '../../http/crud-routes.js';
import { CreatePolicyInput, UpdatePolicyInput } from './escalation.schema.js';
import type { EscalationService } from './escalation.service.js';
import { toPolicyJson } from './policy.js';

export function escalationRoutes(policies: EscalationService) {
  return crudRoutes({
    prefix: '/escalation-policies',
    what: 'escalation policy',
    service: policies,
    listQuery: NoQuery,
    createInput: CreatePolicyInput,
    updateInput: UpdatePolicyInput,
    toJson: toPolicyJson,
  });
}
