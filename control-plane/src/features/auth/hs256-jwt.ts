// HS256 JWT verification with node:crypto, synchronous: jose's WebCrypto path costs a tenth of
// a cheap request (a promise chain and a key import per call) for one HMAC over ~300 bytes.
// The algorithm is pinned; exp and iat are required; the signature is checked before any claim.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type JwtFailure = 'invalid' | 'expired';

export class JwtRejectedError extends Error {
  constructor(readonly failure: JwtFailure) {
    super(`the token is ${failure}`);
  }
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** The payload of `token` when HS256-signed with `key` and unexpired at `nowSeconds`; else throws JwtRejectedError. */
export function verifyHs256(token: string, key: Uint8Array, nowSeconds: number): Record<string, unknown> {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => SEGMENT.test(part))) throw new JwtRejectedError('invalid');
  const [header, payload, signature] = parts as [string, string, string];
  const protectedHeader = parseJsonObject(header);
  // A critical extension we do not know must be refused (RFC 7515 §4.1.11); we know none.
  if (protectedHeader.alg !== 'HS256' || protectedHeader.crit !== undefined) throw new JwtRejectedError('invalid');
  const expected = createHmac('sha256', key).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new JwtRejectedError('invalid');
  const claims = parseJsonObject(payload);
  const { exp, iat, nbf } = claims;
  if (typeof exp !== 'number' || typeof iat !== 'number' || (nbf !== undefined && typeof nbf !== 'number')) throw new JwtRejectedError('invalid');
  if (typeof nbf === 'number' && nbf > nowSeconds) throw new JwtRejectedError('invalid');
  if (exp <= nowSeconds) throw new JwtRejectedError('expired');
  return claims;
}

function parseJsonObject(segment: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    throw new JwtRejectedError('invalid');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JwtRejectedError('invalid');
  return value as Record<string, unknown>;
}
