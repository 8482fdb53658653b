// The client's own address in ctx.ip: the peer of the connection, or, when that peer is one
// of TRUSTED_PROXIES, the nearest address in X-Forwarded-For that is not a trusted proxy.
// A header from anyone else is ignored, so a client cannot pick its own address (and dodge
// or frame others in the per-address limits). Likewise the scheme the client used: TLS to
// this server, or the X-Forwarded-Proto of a trusted proxy that terminated TLS for it.
import type { Context, Next } from 'koa';
import proxyaddr from 'proxy-addr';

export function clientAddress(trustedProxies: readonly string[]) {
  const trust = proxyaddr.compile([...trustedProxies]);
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.request.ip = proxyaddr(ctx.req, trust);
    const forwarded = ctx.get('x-forwarded-proto').split(',')[0]!.trim().toLowerCase();
    const fromProxy = (forwarded === 'https' || forwarded === 'http') && trust(ctx.req.socket.remoteAddress ?? '', 0);
    ctx.state.scheme = ctx.secure ? 'https' : fromProxy ? forwarded : 'http';
    await next();
  };
}

/** The scheme the client used (clientAddress decided it): 'https' or 'http'. */
export function schemeOf(ctx: Pick<Context, 'state' | 'protocol'>): string {
  return (ctx.state.scheme as string | undefined) ?? ctx.protocol;
}
