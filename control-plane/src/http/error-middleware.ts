// The one place that turns errors into HTTP answers (API.md "Errors"): an AppError becomes
// its status and {"error": ...}; a database that does not answer becomes 503 with
// Retry-After; anything else unexpected is logged and becomes a bare 500.
import type { Context, Next } from 'koa';
import { isDatabaseUnavailable } from '../db/pg-errors.js';
import { AppError, type ErrorCode } from '../errors.js';

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  PASSWORD_REQUIRED: 401,
  FORBIDDEN: 403,
  SSO_REQUIRED: 403,
  PLAN_LIMIT_REACHED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  NO_ANSWER: 504,
};

/** Long enough for a database restart or a failover to finish. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new AppError('NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
    }
    // The router answers a method it does not know at all with 501; for a client it is the
    // same mistake as a known method a route lacks.
    if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
      ctx.status = 405;
      ctx.body = { error: `method ${ctx.method} is not allowed on ${ctx.path}`, code: 'METHOD_NOT_ALLOWED' };
    }
  } catch (err) {
    const appError = toAppError(err);
    if (appError) {
      if (appError.code === 'UNAVAILABLE' && appError !== err) ctx.state.log?.warn({ err }, 'database unavailable');
      ctx.status = STATUS_BY_CODE[appError.code];
      ctx.body = {
        error: appError.message,
        code: appError.code,
        ...(appError.extra.details ? { details: appError.extra.details } : {}),
      };
      if (appError.extra.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(appError.extra.retryAfterSeconds));
      return;
    }
    ctx.state.log?.error({ err }, 'unhandled error');
    ctx.status = 500;
    ctx.body = { error: 'internal server error', code: 'INTERNAL' };
  }
}

/** Maps what is not an AppError but still has a known meaning onto our codes. */
function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) {
    return new AppError('UNAVAILABLE', 'the database is unavailable; try again shortly', { retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS });
  }
  // Koa's own helpers (ctx.throw, the router) carry an HTTP status.
  const e = err as { status?: number; message?: string };
  if (e?.status === 400) return new AppError('VALIDATION_FAILED', e.message ?? 'bad request');
  return undefined;
}
