// Refuses a request an API key's scopes do not allow, naming the scope it lacks. The route is
// the one the router chose (the first route of this method matching the path), so the
// scope follows the same table as the OpenAPI document.
import type { Context, Next } from 'koa';
import { AppError } from '../errors.js';
import { allows, scopeOf } from '../features/api-keys/scopes.js';
import { actorOf } from './authenticate.js';

interface MatchedLayer {
  path: string;
  methods: string[];
}

const PREFIX = '/api/v1';

export async function apiKeyScopes(ctx: Context, next: Next): Promise<void> {
  const scopes = actorOf(ctx).apiKey?.scopes;
  if (scopes) {
    const route = ((ctx as unknown as { matched?: MatchedLayer[] }).matched ?? []).find((layer) => layer.methods.includes(ctx.method));
    if (route) {
      const needed = scopeOf(ctx.method, route.path.startsWith(PREFIX) ? route.path.slice(PREFIX.length) : route.path);
      if (!allows(scopes, needed)) throw new AppError('FORBIDDEN', `this API key lacks the "${needed}" scope`);
    }
  }
  await next();
}
