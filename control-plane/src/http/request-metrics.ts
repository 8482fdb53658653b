// Hands the duration of every HTTP request to an observer (the Prometheus metrics), labelled
// by the router's pattern and never by the path: paths carry ids, slugs and heartbeat keys,
// so a label made of them would grow without bound.
import type { Context, Next } from 'koa';

export interface FinishedRequest {
  method: string;
  /** The matched route's pattern (`/api/v1/services/:id`), `dashboard`, or `unmatched`. */
  route: string;
  status: number;
  seconds: number;
}

export interface RequestObserver {
  requestFinished(request: FinishedRequest): void;
}

export function observeRequests(observer: RequestObserver) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const started = performance.now();
    try {
      await next();
    } finally {
      observer.requestFinished({ method: ctx.method, route: routeOf(ctx), status: ctx.status, seconds: (performance.now() - started) / 1000 });
    }
  };
}

function routeOf(ctx: Context): string {
  const matched = (ctx as { _matchedRoute?: string })._matchedRoute;
  if (matched) return matched;
  // Outside /api, GET and HEAD are the dashboard's files and its client-side routes.
  const api = ctx.path === '/api' || ctx.path.startsWith('/api/');
  return !api && (ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.status < 400 ? 'dashboard' : 'unmatched';
}
