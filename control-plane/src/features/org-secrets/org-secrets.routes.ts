// /secrets: full CRUD, organization-scoped (API.md "Other resource groups"); values go in, never out.
import { crudOperations, crudRoutes, NoQuery } from '../../http/crud-routes.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { CreateSecretInput, SecretJson, toSecretJson, UpdateSecretInput } from './org-secrets.schema.js';
import type { OrgSecretsService } from './org-secrets.service.js';

const resource = { prefix: '/secrets', what: 'secret', listQuery: NoQuery, createInput: CreateSecretInput, updateInput: UpdateSecretInput };

// A name taken is a 409 on create; a secret some service uses, a 409 on delete.
export const orgSecretsOperations: ApiOperation[] = crudOperations({ ...resource, tag: 'Secrets', item: SecretJson, errors: [409] }).map((op) =>
  op.method === 'put' ? { ...op, errors: [] } : op.method === 'delete' ? { ...op, errors: [409] } : op,
);

export function orgSecretsRoutes(secrets: OrgSecretsService) {
  return crudRoutes({ ...resource, service: secrets, toJson: toSecretJson });
}
