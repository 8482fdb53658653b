// JWTs per API.md: HS256 (pinned on verification), claims user_id, tenant_id, email, iat, exp,
// and `sid`, the session the token belongs to (sessions/), which must still be alive for the
// token to be served. Issued by jose; verified on every request by hs256-jwt.ts, synchronously.
import { SignJWT } from 'jose';
import { AppError } from '../../errors.js';
import { JwtRejectedError, verifyHs256 } from './hs256-jwt.js';

export const TOKEN_LIFETIME_SECONDS = 72 * 3600;

export interface TokenClaims {
  userId: string;
  tenantId: string;
  email: string;
  /** The session the token belongs to; absent only in tokens minted outside sign-in. */
  sessionId?: string;
}

export interface VerifiedToken extends TokenClaims {
  issuedAt: Date;
  expiresAt: Date;
}

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export interface TokenService {
  issue(claims: TokenClaims): Promise<IssuedToken>;
  /** Throws UNAUTHENTICATED for a malformed, expired, tampered or unsigned token. */
  verify(token: string): VerifiedToken;
}

export function createTokenService(secret: string, now: () => Date = () => new Date()): TokenService {
  const key = new TextEncoder().encode(secret);
  return {
    async issue(claims) {
      const iat = Math.floor(now().getTime() / 1000);
      const exp = iat + TOKEN_LIFETIME_SECONDS;
      const token = await new SignJWT({ user_id: claims.userId, tenant_id: claims.tenantId, email: claims.email, ...(claims.sessionId && { sid: claims.sessionId }) })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(key);
      return { token, expiresAt: new Date(exp * 1000) };
    },
    verify(token) {
      let claims: Record<string, unknown>;
      try {
        claims = verifyHs256(token, key, Math.floor(now().getTime() / 1000));
      } catch (err) {
        if (err instanceof JwtRejectedError && err.failure === 'expired') throw new AppError('UNAUTHENTICATED', 'the token has expired');
        throw new AppError('UNAUTHENTICATED', 'the token is invalid');
      }
      const { user_id: userId, tenant_id: tenantId, email, exp, iat, sid } = claims;
      if (typeof userId !== 'string' || typeof tenantId !== 'string' || typeof email !== 'string' || (sid !== undefined && typeof sid !== 'string')) {
        throw new AppError('UNAUTHENTICATED', 'the token lacks the user_id, tenant_id or email claim');
      }
      return { userId, tenantId, email, sessionId: sid, issuedAt: new Date((iat as number) * 1000), expiresAt: new Date((exp as number) * 1000) };
    },
  };
}
