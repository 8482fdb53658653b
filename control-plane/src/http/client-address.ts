// The client's own address in ctx.ip: the peer of the connection, or, when that peer is one
// of TRUSTED_PROXIES, the nearest address in X-Forwarded-For that is not a trusted proxy.
// A header from anyone else is ignored, so a client cannot pick its own address (and dodge
// or frame others in the per-address limits).
import type { Context, Next } from 'koa';
import proxyaddr from 'proxy-addr';

export function clientAddress(trustedProxies: readonly string[]) {
  const trust = proxyaddr.compile([...trustedProxies]);
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.request.ip = proxyaddr(ctx.req, trust);
    await next();
  };
}
