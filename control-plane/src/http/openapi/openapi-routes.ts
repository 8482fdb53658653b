// GET /api/v1/openapi.json: the document, built once on the first request.
import Router from '@koa/router';
import { z } from 'zod';
import type { ApiOperation } from './api-operation.js';
import { buildOpenApiDocument } from './openapi-document.js';

export const API_VERSION = '1.0.0';

export const openApiOperations: ApiOperation[] = [
  {
    method: 'get', path: '/openapi.json', tag: 'Health', summary: 'This OpenAPI 3.1 document', public: true,
    responses: { 200: z.record(z.string(), z.unknown()) },
  },
];

export function openApiRoutes(operations: readonly ApiOperation[]): Router {
  const router = new Router();
  let document: Record<string, unknown> | undefined;
  router.get('/openapi.json', (ctx) => {
    document ??= buildOpenApiDocument(operations, { version: API_VERSION });
    ctx.body = document;
  });
  return router;
}
