import Router from '@koa/router';
import { z } from 'zod';
import { actorOf } from '../../http/authenticate.js';
import type { ApiOperation } from '../../http/openapi/api-operation.js';
import { parseInput } from '../../http/validate.js';
import type { ApiKey } from './api-keys.repository.js';
import type { ApiKeysService } from './api-keys.service.js';

export const CreateApiKeyInput = z.strictObject({
  name: z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200),
  role: z.enum(['owner', 'admin', 'member', 'viewer'], { message: 'role must be owner, admin, member or viewer' }).default('member'),
});
const ApiKeyId = z.uuid({ message: 'API key id must be a UUID' });

const ApiKeyJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    role: z.enum(['owner', 'admin', 'member', 'viewer']),
    prefix: z.string().meta({ description: 'The first characters of the key, to recognise it' }),
    created_by: z.uuid().nullable(),
    created_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ApiKey' });
const ApiKeyWithSecretJson = ApiKeyJson.extend({ key: z.string().meta({ description: 'The secret op_…, shown only here' }) }).meta({ id: 'ApiKeyWithSecret' });

const tag = 'API keys';
export const apiKeysOperations: ApiOperation[] = [
  { method: 'get', path: '/api-keys', tag, summary: 'List API keys', responses: { 200: z.array(ApiKeyJson) } },
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
