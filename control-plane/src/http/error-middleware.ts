// The one place that turns errors into HTTP answers (API.md "Errors"): an AppError becomes
// its status and {"error": ...}; anything unexpected is logged and becomes a bare 500.
import type { Context, Next } from 'koa';
import { AppError, type ErrorCode } from '../errors.js';

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  PLAN_LIMIT_REACHED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
};

export async function errorMiddleware(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new AppError('NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
    }
    if (ctx.status === 405 && ctx.body === undefined) {
      ctx.body = { error: `method ${ctx.method} is not allowed on ${ctx.path}` };
    }
  } catch (err) {
    const appError = toAppError(err);
    if (appError) {
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

/** Maps errors thrown by Koa's own helpers (body parser, ctx.throw) onto our codes. */
function toAppError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; type?: string; message?: string; expose?: boolean };
  switch (e?.status) {
    case 400:
      return new AppError('VALIDATION_FAILED', e.type === 'entity.parse.failed' ? 'the request body is not valid JSON' : (e.message ?? 'bad request'));
    case 413:
      return new AppError('PAYLOAD_TOO_LARGE', 'the request body is larger than 1 MiB');
    case 415:
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json');
    default:
      return undefined;
  }
}
