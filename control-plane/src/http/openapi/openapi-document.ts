// Builds the OpenAPI 3.1 document from the operations the features declare: request and
// response schemas are the same zod schemas the routes use, turned into JSON Schema 2020-12
// (OpenAPI 3.1's dialect). Schemas given an id with .meta({ id }) become components.
import { z } from 'zod';
import { ApiError, errorStatuses, type ApiOperation, type SuccessBody } from './api-operation.js';

type Json = Record<string, unknown>;

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  400: 'Invalid input: malformed JSON, a wrong type, a missing field, an id that is not a UUID',
  401: 'Missing, malformed, expired or tampered credentials (or a wrong password at login)',
  403: 'Authenticated but not allowed: role too low, or a plan limit reached',
  404: 'Unknown id, or one that belongs to another organization',
  405: 'Method not allowed on this path',
  409: 'Conflict with the current state',
  413: 'Body over 1 MiB',
  415: 'Body whose Content-Type is not JSON',
  429: 'Too many requests; see Retry-After',
  503: 'The database is unavailable; see Retry-After',
  504: 'What the control plane asked on your behalf (an agent) gave no answer in time',
};

/** `/services/:id` → `/services/{id}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z_]\w*)/g, '{$1}');

export function buildOpenApiDocument(operations: readonly ApiOperation[], info: { version: string }): Json {
  const components: Record<string, unknown> = {};
  const schemaOf = (schema: z.ZodType, io: 'input' | 'output') => toSchema(schema, io, components);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const path = `/api/v1${openApiPath(op.path)}`;
    paths[path] ??= {};
    if (paths[path][op.method]) throw new Error(`two operations for ${op.method.toUpperCase()} ${path}`);
    paths[path][op.method] = operationObject(op, schemaOf);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Outpost API',
      version: info.version,
      description:
        'Monitoring and alerting for private networks. The contract is docs/API.md in the repository; this document is generated from the schemas that validate each request.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerJwt: [] }, { apiKey: [] }],
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token from POST /api/v1/auth/login, valid 72 h.' },
        apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'op_…', description: 'An API key (POST /api/v1/api-keys), sent as a bearer token in the same Authorization header.' },
      },
      schemas: components,
    },
  };
}

function operationObject(op: ApiOperation, schemaOf: (s: z.ZodType, io: 'input' | 'output') => Json): Json {
  const parameters: Json[] = [];
  for (const [name, schema] of Object.entries(op.params ?? {})) {
    parameters.push({ name, in: 'path', required: true, schema: schemaOf(schema, 'input') });
  }
  for (const [name, schema] of Object.entries(op.query?.shape ?? {})) {
    const field = schema as z.ZodType;
    parameters.push({ name, in: 'query', required: !field.safeParse(undefined).success, schema: schemaOf(field, 'input') });
  }
  const responses: Record<string, unknown> = {};
  for (const [status, body] of Object.entries(op.responses)) responses[status] = successResponse(Number(status), body as SuccessBody, schemaOf);
  const errorRef = schemaOf(ApiError, 'output');
  for (const status of errorStatuses(op).filter((s) => !(s in op.responses))) {
    responses[String(status)] = {
      description: STATUS_TEXT[status] ?? 'Error',
      ...(status === 429 || status === 503 ? { headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' } } } : {}),
      content: { 'application/json': { schema: errorRef } },
    };
  }
  return {
    operationId: operationId(op),
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.public ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: !op.bodyOptional, content: { 'application/json': { schema: schemaOf(op.body, 'input') } } } } : {}),
    responses,
  };
}

function successResponse(status: number, body: SuccessBody, schemaOf: (s: z.ZodType, io: 'input' | 'output') => Json): Json {
  const description = STATUS_TEXT[status] ?? 'Success';
  if (body === null) return { description };
  if (body instanceof z.ZodType) return { description, content: { 'application/json': { schema: schemaOf(body, 'output') } } };
  if ('file' in body) return { description, content: { [body.file]: { schema: { type: 'string', format: 'binary' } } } };
  if ('json' in body) return { description, content: { 'application/json': { schema: schemaOf(body.json, 'output') }, [body.orFile]: { schema: { type: 'string', format: 'binary' } } } };
  return { description, content: { 'text/plain': { schema: { type: 'string', example: body.text } } } };
}

/** `GET /services/:id/checks` → `getServicesIdChecks`: stable and unique per method and path. */
function operationId(op: ApiOperation): string {
  const words = op.path.split(/[/:{}-]+/).filter(Boolean);
  return op.method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/**
 * One zod schema as JSON Schema. Named schemas (.meta({ id })) are moved into components and
 * referenced there, since a `#/$defs/...` reference would resolve against the document root.
 */
function toSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, unknown>): Json {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as Json;
  delete json.$schema;
  const defs = (json.$defs ?? {}) as Record<string, unknown>;
  delete json.$defs;
  const relink = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
  for (const [id, def] of Object.entries(defs)) components[id] ??= relink(def);
  const top = relink(json);
  // A named schema at the top comes back as its own definition; refer to it instead.
  const id = z.globalRegistry.get(schema)?.id;
  if (id && typeof id === 'string') {
    components[id] ??= top;
    return { $ref: `#/components/schemas/${id}` };
  }
  return top;
}
