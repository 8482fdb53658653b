// Resolves `Authorization: Bearer <JWT or API key>` into the acting user; every route behind
// it is protected. The organization is the token's tenant unless a route resolves another one.
import type { Context, Next } from 'koa';
import { AppError } from '../errors.js';
import type { Actor } from '../features/auth/actor.js';
import type { CredentialVerifier } from '../features/auth/credential-verifier.js';

export function authenticate(verify: CredentialVerifier) {
  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.state.actor = await bearerActor(ctx, verify);
    await next();
  };
}

/** The user of the request's `Authorization: Bearer` credential; UNAUTHENTICATED without a valid one. */
export async function bearerActor(ctx: Pick<Context, 'get'>, verify: CredentialVerifier): Promise<Actor> {
  const header = ctx.get('authorization');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) {
    throw new AppError('UNAUTHENTICATED', header ? 'the Authorization header must be "Bearer <token>"' : 'authentication required');
  }
  return verify(match[1]);
}

export function actorOf(ctx: Pick<Context, 'state'>): Actor {
  const actor = ctx.state.actor as Actor | undefined;
  if (!actor) throw new AppError('UNAUTHENTICATED', 'authentication required');
  return actor;
}
