// Checks answers against the OpenAPI document the control plane serves, so the document
// cannot drift from what the routes send: ApiClient calls this for every answer it receives.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { apiOperations } from '../../control-plane/src/api-operations.js';
import { buildOpenApiDocument } from '../../control-plane/src/http/openapi/openapi-document.js';

type Json = Record<string, any>;

const COMPONENTS_ID = 'https://outpost.invalid/components';

interface Route {
  template: string;
  pattern: RegExp;
  params: number;
  item: Json;
}

let contract: { routes: Route[]; ajv: Ajv2020; compiled: Map<string, ValidateFunction> } | undefined;

export function openApiDocument(): Json {
  return buildOpenApiDocument(apiOperations, { version: 'test' });
}

function load() {
  if (contract) return contract;
  const doc = JSON.parse(JSON.stringify(openApiDocument()).replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`)) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: doc.components.schemas });
  const routes = Object.entries(doc.paths as Record<string, Json>).map(([template, item]) => {
    const relative = template.replace(/^\/api\/v1/, '');
    const source = relative.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
    return { template, pattern: new RegExp(`^${source}$`), params: (relative.match(/\{/g) ?? []).length, item };
  });
  // A literal segment wins over a parameter: /services/summary is not /services/{id}.
  routes.sort((a, b) => a.params - b.params);
  contract = { routes, ajv, compiled: new Map() };
  return contract;
}

/**
 * Throws when the answer to `method path` (relative to /api/v1) is not what the document
 * says. Paths and methods the document does not have are left alone: tests probe them on
 * purpose, and the drift test keeps routes and operations in step.
 */
export function assertAnswerMatchesContract(method: string, path: string, status: number, contentType: string | null, text: string): void {
  const { routes, ajv, compiled } = load();
  const bare = path.split('?')[0]!;
  const route = routes.find((r) => r.pattern.test(bare));
  const operation = route?.item[method.toLowerCase()] as Json | undefined;
  if (!route || !operation) return;
  const where = `${method.toUpperCase()} ${route.template} → ${status}`;
  const response = operation.responses[String(status)] as Json | undefined;
  if (!response) throw new Error(`OpenAPI: ${where} is not a documented answer (body: ${text.slice(0, 300)})`);
  if (method.toUpperCase() === 'HEAD') return;
  const content = response.content as Json | undefined;
  if (!content) {
    if (text !== '') throw new Error(`OpenAPI: ${where} is documented without a body but has one: ${text.slice(0, 300)}`);
    return;
  }
  if (!content['application/json']) return;
  // An answer documented as JSON or a file (format=csv) may be the file.
  if (contentType && Object.keys(content).some((type) => type !== 'application/json' && contentType.startsWith(type))) return;
  if (!contentType?.startsWith('application/json')) throw new Error(`OpenAPI: ${where} should be JSON, is ${contentType}`);
  const key = `${method} ${route.template} ${status}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(content['application/json'].schema);
    compiled.set(key, validate);
  }
  if (!validate(JSON.parse(text))) {
    throw new Error(`OpenAPI: the answer to ${where} does not match the document: ${ajv.errorsText(validate.errors, { separator: '; ' })}\n  body: ${text.slice(0, 500)}`);
  }
}
