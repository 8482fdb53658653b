import Router from '@koa/router';

/** A readiness probe must answer even when the database hangs instead of refusing. */
const READY_TIMEOUT_MS = 2_000;

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
