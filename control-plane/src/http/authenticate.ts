// Resolves `Authorization: Bearer <token>` into the acting user; every route behind it is
// protected. The organization is the token's tenant unless a route resolves another one.
import type { Context, Next } from 'koa';
import { AppError } from '../errors.js';
import type { TokenService } from '../features/auth/token-service.js';

export interface Actor {
  userId: string;
  email: string;
  /** The organization named by the token (tenant_id). */
  organizationId: string;
}

export function authenticate(tokens: TokenService) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const header = ctx.get('authorization');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) {
      throw new AppError('UNAUTHENTICATED', header ? 'the Authorization header must be "Bearer <token>"' : 'authentication required');
    }
    const claims = await tokens.verify(match[1]);
    ctx.state.actor = { userId: claims.userId, email: claims.email, organizationId: claims.tenantId } satisfies Actor;
    await next();
  };
}

export function actorOf(ctx: Pick<Context, 'state'>): Actor {
  const actor = ctx.state.actor as Actor | undefined;
  if (!actor) throw new AppError('UNAUTHENTICATED', 'authentication required');
  return actor;
}
