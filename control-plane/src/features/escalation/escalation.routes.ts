import { crudOperations, crudRoutes, NoQuery } from '../../http/crud-routes.js';
import { CreatePolicyInput, PolicyJson, UpdatePolicyInput } from './escalation.schema.js';
import type { EscalationService } from './escalation.service.js';
import { toPolicyJson } from './policy.js';

const resource = { prefix: '/escalation-policies', what: 'escalation policy', listQuery: NoQuery, createInput: CreatePolicyInput, updateInput: UpdatePolicyInput };

// A step naming an unknown channel or team is a 404.
export const escalationOperations = crudOperations({ ...resource, tag: 'Escalation policies', item: PolicyJson, errors: [404] });

export function escalationRoutes(policies: EscalationService) {
  return crudRoutes({ ...resource, service: policies, toJson: toPolicyJson });
}
