import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import type { ApiKey } from './api-keys.repository.js';
import type { ApiKeysService } from './api-keys.service.js';
import { API_KEY_SCOPES } from './scopes.js';

const Scope = z.enum(API_KEY_SCOPES as [string, ...string[]], { message: 'unknown scope; GET /api-keys/scopes lists them' });

export const CreateApiKeyInput = z.strictObject({
  name: z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200),
  role: z.enum(['owner', 'admin', 'member', 'viewer'], { message: 'role must be owner, admin, member or viewer' }).default('member'),
  scopes: z
    .array(Scope, { message: 'scopes must be an array of scopes' })
    .min(1, 'scopes must name at least one scope (leave it out for all of the role)')
    .max(API_KEY_SCOPES.length)
    .transform((scopes) => [...new Set(scopes)].sort())
    .nullish()
    .meta({ description: 'What the key may do within its role, such as services:read or checks:run; absent or null: everything its role allows' }),
  expires_at: z.iso
    .datetime({ offset: true, message: 'expires_at must be an ISO 8601 date-time' })
    .transform((value) => new Date(value))
    .nullish()
    .meta({ description: 'When the key stops working; absent or null: never' }),
});
const ApiKeyId = z.uuid({ message: 'API key id must be a UUID' });

const ApiKeyJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    role: z.enum(['owner', 'admin', 'member', 'viewer']),
    prefix: z.string().meta({ description: 'The first characters of the key, to recognise it' }),
    scopes: z.array(z.string()).nullable().meta({ description: 'Null: everything the role allows' }),
    expires_at: z.iso.datetime().nullable(),
    created_by: z.uuid().nullable(),
    created_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ApiKey' });
const ApiKeyWithSecretJson = ApiKeyJson.extend({ key: z.string().meta({ description: 'The secret op_…, shown only here' }) }).meta({ id: 'ApiKeyWithSecret' });

const tag = 'API keys';
export const apiKeysOperations: ApiOperation[] = [
  { method: 'get', path: '/api-keys', tag, summary: 'List API keys', responses: { 200: z.array(ApiKeyJson) } },
  {
    method: 'get', path: '/api-keys/scopes', tag, summary: 'The scopes a key may carry',
    description: '`<resource>:read` and `<resource>:write` (which includes read) per route group, `checks:run` to run checks now, `metrics:read` for results, uptime and metrics.',
    responses: { 200: z.array(z.string()) },
  },
  { method: 'post', path: '/api-keys', tag, summary: 'Create an API key; its secret is answered once', body: CreateApiKeyInput, responses: { 201: ApiKeyWithSecretJson } },
  { method: 'get', path: '/api-keys/:id', tag, summary: 'Read an API key', params: { id: ApiKeyId }, responses: { 200: ApiKeyJson } },
  { method: 'delete', path: '/api-keys/:id', tag, summary: 'Revoke an API key', params: { id: ApiKeyId }, responses: { 204: null } },
];

function toApiKeyJson(k: ApiKey) {
  return {
    id: k.id,
    organization_id: k.organizationId,
    name: k.name,
    role: k.role,
    prefix: `op_${k.prefix}`,
    scopes: k.scopes,
    expires_at: k.expiresAt?.toISOString() ?? null,
    created_by: k.createdBy,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
  };
}

export function apiKeysRoutes(keys: ApiKeysService): Router {
  const router = new Router({ prefix: '/api-keys' });
  router.get('/', async (ctx) => {
    ctx.body = (await keys.list(actorOf(ctx))).map(toApiKeyJson);
  });
  router.get('/scopes', (ctx) => {
    ctx.body = API_KEY_SCOPES;
  });
  router.post('/', async (ctx) => {
    const input = parseInput(CreateApiKeyInput, ctx.request.body);
    const { key, secret } = await keys.create(actorOf(ctx), input);
    ctx.status = 201;
    ctx.body = { ...toApiKeyJson(key), key: secret };
  });
  router.get('/:id', async (ctx) => {
    ctx.body = toApiKeyJson(await keys.get(actorOf(ctx), parseInput(ApiKeyId, ctx.params.id, 'API key id')));
  });
  router.delete('/:id', async (ctx) => {
    await keys.revoke(actorOf(ctx), parseInput(ApiKeyId, ctx.params.id, 'API key id'));
    ctx.status = 204;
  });
  return router;
}
