// Resolves `Authorization: Bearer <JWT or API key>` into the acting user; every route behind
// it is protected. The organization is the token's tenant unless a route resolves another one.
import type { Context, Next } from 'koa';
import { AppError } from '../errors.js';
import type { Actor } from '../features/auth/actor.js';
import type { CredentialVerifier } from '../features/auth/credential-verifier.js';

export function authenticate(verify: CredentialVerifier) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const header = ctx.get('authorization');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) {
      throw new AppError('UNAUTHENTICATED', header ? 'the Authorization header must be "Bearer <token>"' : 'authentication required');
    }
    ctx.state.actor = await verify(match[1]);
    await next();
  };
}

export function actorOf(ctx: Pick<Context, 'state'>): Actor {
  const actor = ctx.state.actor as Actor | undefined;
  if (!actor) throw new AppError('UNAUTHENTICATED', 'authentication required');
  return actor;
}
