// Who is acting: the user a credential (a JWT or an API key) stands for, in the organization
// it names. Every use case takes one; the transports (HTTP, WebSocket) produce it.
import type { Role } from '../organizations/membership.entity.js';
import type { SignInMethod } from '../sessions/sign-in-method.js';

export interface Actor {
  userId: string;
  email: string;
  /** The organization named by the token (tenant_id), or the API key's. */
  organizationId: string;
  /** Set when the request came with an API key instead of a JWT; scopes null: all of the role. */
  apiKey?: { id: string; role: Role; scopes: readonly string[] | null };
  /** When the credential stops being valid (a JWT's exp, an API key's expires_at). */
  expiresAt?: Date;
  /** The session a JWT belongs to; absent for API keys and tokens minted outside sign-in. */
  sessionId?: string;
  /** How that session was started ("SSO required", SSO counting as a second factor). */
  signInMethod?: SignInMethod;
}
