// Turns a bearer credential into the acting user: API keys (`op_…`) by their own service, any
// other credential as a JWT whose session must still be alive. Shared by the HTTP middleware
// and the WebSocket handshake.
import type { SessionLiveness } from '../sessions/session-liveness.js';
import type { Actor } from './actor.js';
import type { TokenService } from './token-service.js';

export type CredentialVerifier = (credential: string) => Promise<Actor>;

export interface ApiKeyAuthenticator {
  isApiKey(raw: string): boolean;
  authenticate(raw: string): Promise<Actor>;
}

export function jwtOrApiKey(tokens: TokenService, apiKeys: ApiKeyAuthenticator, liveness: Pick<SessionLiveness, 'assertAlive'>): CredentialVerifier {
  return async (credential) => {
    if (apiKeys.isApiKey(credential)) return apiKeys.authenticate(credential);
    const claims = tokens.verify(credential);
    const signInMethod = await liveness.assertAlive(claims);
    return {
      userId: claims.userId,
      email: claims.email,
      organizationId: claims.tenantId,
      expiresAt: claims.expiresAt,
      ...(claims.sessionId && { sessionId: claims.sessionId }),
      ...(signInMethod && { signInMethod }),
    };
  };
}
