// Resolves `Authorization: Bearer <JWT or API key>` into the acting user; every route behind
// it is protected. The organization is the token's tenant unless a route resolves another one.
import type { Context, Next } from 'koa';
import { AppError } from '../errors.js';
import type { TokenService } from '../features/auth/token-service.js';
import type { Role } from '../features/organizations/membership.entity.js';

export interface Actor {
  userId: string;
  email: string;
  /** The organization named by the token (tenant_id), or the API key's. */
  organizationId: string;
  /** Set when the request came with an API key instead of a JWT. */
  apiKey?: { id: string; role: Role };
  /** When the credential stops being valid (a JWT's exp); API keys last until revoked. */
  expiresAt?: Date;
}

/** Turns a bearer credential (JWT or API key) into the acting user. */
export type CredentialVerifier = (credential: string) => Promise<Actor>;

export function jwtOrApiKey(tokens: TokenService, apiKeys: { isApiKey(raw: string): boolean; authenticate(raw: string): Promise<Actor> }): CredentialVerifier {
  return async (credential) => {
    if (apiKeys.isApiKey(credential)) return apiKeys.authenticate(credential);
    const claims = await tokens.verify(credential);
    return { userId: claims.userId, email: claims.email, organizationId: claims.tenantId, expiresAt: claims.expiresAt };
  };
}

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
