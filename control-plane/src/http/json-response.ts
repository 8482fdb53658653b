// Serializes a JSON answer once. Left as an object, Koa stringifies it to learn its length
// (the compression threshold asks) and again to send it: for 2,000 services, ~1 MB twice.
import type { Context, Next } from 'koa';

export async function jsonResponse(ctx: Context, next: Next): Promise<void> {
  await next();
  const body: unknown = ctx.body;
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
  ctx.body = JSON.stringify(body);
  ctx.type = 'application/json';
}
