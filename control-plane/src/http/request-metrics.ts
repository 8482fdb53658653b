// What the Prometheus metrics are told of every HTTP request (request-context.ts tells them),
// labelled by the router's pattern and never by the path: paths carry ids, slugs and heartbeat
// keys, so a label made of them would grow without bound.
import type { Context } from 'koa';

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

/** The matched route's pattern, `dashboard` for the dashboard's pages and files, else `unmatched`. */
export function routeOf(ctx: Context): string {
  const matched = (ctx as { _matchedRoute?: string })._matchedRoute;
  if (matched) return matched;
  // Outside /api, GET and HEAD are the dashboard's files and its client-side routes.
  const api = ctx.path === '/api' || ctx.path.startsWith('/api/');
  return !api && (ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.status < 400 ? 'dashboard' : 'unmatched';
}
