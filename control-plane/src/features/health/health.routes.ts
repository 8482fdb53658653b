import Router from '@koa/router';

/** Liveness answers while the process runs; readiness only while the database answers. */
export function healthRoutes(pingDatabase: () => Promise<void>): Router {
  const router = new Router();
  router.get('/health', (ctx) => {
    ctx.type = 'text/plain';
    ctx.body = 'OK';
  });
  router.get('/ready', async (ctx) => {
    try {
      await pingDatabase();
      ctx.body = { status: 'ready' };
    } catch (err) {
      ctx.status = 503;
      ctx.body = { status: 'not ready', error: `database unavailable: ${err instanceof Error ? err.message : String(err)}` };
    }
  });
  return router;
}
