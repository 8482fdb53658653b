// Gives every request an id (kept from X-Request-Id when sane), one structured log line, and
// its route, status and duration to the observer (the Prometheus metrics).
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../logger.js';
import { routeOf, type RequestObserver } from './request-metrics.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function requestContext(logger: Logger, observer: RequestObserver) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const incoming = ctx.get('x-request-id');
    const requestId = SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const started = performance.now();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const ms = performance.now() - started;
      // The route's pattern, not the path: paths carry ids, slugs and heartbeat keys.
      ctx.state.log.info({ method: ctx.method, route: (ctx as { _matchedRoute?: string })._matchedRoute ?? 'none', status: ctx.status, ms: Math.round(ms) }, 'request');
      observer.requestFinished({ method: ctx.method, route: routeOf(ctx), status: ctx.status, seconds: ms / 1000 });
    }
  };
}
