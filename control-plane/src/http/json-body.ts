// Bodies are JSON, at most 1 MiB (API.md): anything else is 415, larger is 413, and a body
// that cannot be read as its headers describe it (bad JSON, a gzip header on a plain body,
// a short body) is 400. Every failure of reading the body is the client's, so none is a 500.
import type { IncomingMessage } from 'node:http';
import parseBody from 'co-body';
import type { Context, Next } from 'koa';
import { AppError, validationFailed } from '../errors.js';

declare module 'koa' {
  interface Request {
    /** The parsed JSON body; undefined when the request had none. */
    body?: unknown;
  }
}

const MAX_BODY_BYTES = 1024 * 1024;
/**
 * An oversized body is read to its end before the 413 goes out, so a client still writing
 * reads the answer instead of a reset connection; past this much it is cut off.
 */
const MAX_DISCARDED_BYTES = 64 * 1024 * 1024;

/**
 * Bodies that are not read: heartbeat pings may carry anything (a job's log output), and a mail
 * client's one-click unsubscribe (RFC 8058) posts a form.
 */
const ANY_BODY = /^\/api\/v1\/(heartbeat\/|subscriptions\/unsubscribe$)/;
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export async function jsonBody(ctx: Context, next: Next): Promise<void> {
  if (!WITH_BODY.has(ctx.method) || ANY_BODY.test(ctx.path)) return next();
  const hasBody = ctx.request.length > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !ctx.is('application/json')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'the request body must be application/json');
  }
  if (hasBody) {
    try {
      ctx.request.body = await parseBody.json(ctx, { limit: MAX_BODY_BYTES, encoding: 'utf-8', strict: true });
    } catch (err) {
      throw await bodyError(err, ctx);
    }
  }
  await next();
}

async function bodyError(err: unknown, ctx: Context): Promise<AppError> {
  const e = err as { status?: number; type?: string; errno?: number; message?: string };
  const encoding = ctx.get('content-encoding') || 'identity';
  if (e.status === 413 || e.type === 'entity.too.large') {
    await discardRest(ctx.req);
    ctx.set('Connection', 'close');
    return new AppError('PAYLOAD_TOO_LARGE', 'the request body is larger than 1 MiB');
  }
  if (e.status === 415 || e.type === 'encoding.unsupported') {
    return new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      /content-encoding/i.test(e.message ?? '') ? `Content-Encoding "${encoding}" is not supported; send gzip, deflate, br or none` : 'the request body must be UTF-8 JSON',
    );
  }
  // Only zlib's errors carry an errno here: the body did not decompress.
  if (typeof e.errno === 'number') {
    return validationFailed(`the request body is not ${encoding} data, though its Content-Encoding says so`);
  }
  if (e.type === 'request.aborted') return validationFailed('the request body ended early');
  if (e.type === 'request.size.invalid') return validationFailed('the request body is not as long as its Content-Length says');
  if (/prototype property/.test(e.message ?? '')) return validationFailed('the request body may not contain a "__proto__" key');
  return validationFailed('the request body is not valid JSON');
}

/** Reads and drops what the client is still sending; gives up (closing) past the cap. */
function discardRest(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let discarded = 0;
    const done = () => {
      req.off('data', count);
      resolve();
    };
    const count = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > MAX_DISCARDED_BYTES) {
        req.socket.destroy();
        done();
      }
    };
    req.on('data', count);
    req.once('end', done);
    req.once('close', done);
    req.resume();
  });
}
