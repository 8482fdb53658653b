// The API rate limit of API.md: each credential (a user's tokens together, or one API key)
// gets a budget of requests per window; past it, 429 with Retry-After. Every answer tells
// the budget in the RateLimit-* headers so that scripts can pace themselves.
import type { Context, Next } from 'koa';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { actorOf } from './authenticate.js';

export function apiRateLimit(limiter: RateLimiter) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const actor = actorOf(ctx);
    const key = actor.apiKey ? `key:${actor.apiKey.id}` : `user:${actor.userId}`;
    ctx.set('RateLimit-Limit', String(limiter.limit.points));
    // Stays as it is on a 429 (consume throws); overwritten when the request may go on.
    ctx.set('RateLimit-Remaining', '0');
    const usage = await limiter.consume(key, `too many requests: at most ${limiter.limit.points} per ${limiter.limit.windowSeconds} s for one credential`);
    ctx.set('RateLimit-Remaining', String(usage.remaining));
    ctx.set('RateLimit-Reset', String(usage.resetInSeconds));
    await next();
  };
}
