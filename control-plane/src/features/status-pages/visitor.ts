// Who is looking at a status page, as the page's access rules need it: the client's address
// (ctx.ip, which honours TRUSTED_PROXIES), the cookies a password page sets, and a signed-in
// member's credential when the dashboard sends one. Nothing here trusts the visitor.
import type { Context } from 'koa';

export interface Visitor {
  ip: string;
  cookie(name: string): string | undefined;
  /** The bearer credential, if the request carries one. */
  credential: string | undefined;
}

export function visitorOf(ctx: Pick<Context, 'ip' | 'cookies' | 'get'>): Visitor {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
  return { ip: ctx.ip, cookie: (name) => ctx.cookies.get(name), credential: bearer };
}
