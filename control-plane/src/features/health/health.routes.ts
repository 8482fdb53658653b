import Router from '@koa/router';
import { z } from 'zod';
import type { ApiOperation } from '../../http/openapi/api-operation.js';

/** A readiness probe must answer even when the database hangs instead of refusing. */
const READY_TIMEOUT_MS = 2_000;

export const healthOperations: ApiOperation[] = [
  { method: 'get', path: '/health', tag: 'Health', summary: 'Liveness: answers while the process runs', public: true, responses: { 200: { text: 'OK' } } },
  {
    method: 'get', path: '/ready', tag: 'Health', summary: 'Readiness: answers 200 while the database answers', public: true,
    responses: {
      200: z.object({ status: z.literal('ready') }),
      503: z.object({ status: z.literal('not ready'), error: z.string() }),
    },
  },
];

/** Liveness answers while the process runs; readiness only while the database answers. */
export function healthRoutes(pingDatabase: () => Promise<void>): Router {
  const router = new Router();
  router.get('/health', (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = 'OK';
  });
  router.get('/ready', async (ctx) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([pingDatabase(), timeout]);
      ctx.body = { status: 'ready' };
    } catch (err) {
      ctx.status = 503;
      ctx.body = { status: 'not ready', error: `database unavailable: ${err instanceof Error ? err.message : String(err)}` };
    } finally {
      clearTimeout(timer);
    }
  });
  return router;
}
