// Bodies are JSON, at most 1 MiB (API.md): anything else is 415, larger is 413.
import { bodyParser } from '@koa/bodyparser';
import type { Context, Next } from 'koa';
import { AppError } from '../errors.js';

const parseJson = bodyParser({ enableTypes: ['json'], jsonLimit: '1mb', encoding: 'utf-8' });

/** Heartbeat pings may carry any body (a job's log output); it is not read. */
const ANY_BODY = /^\/api\/v1\/heartbeat\//;

export async function jsonBody(ctx: Context, next: Next): Promise<void> {
  if (ANY_BODY.test(ctx.path)) return next();
  const hasBody = ctx.request.length > 0 || ctx.get('transfer-encoding') !== '';
  if ((ctx.method === 'POST' || ctx.method === 'PUT' || ctx.method === 'PATCH') && hasBody && !ctx.is('application/json')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json');
  }
  await parseJson(ctx, next);
}
