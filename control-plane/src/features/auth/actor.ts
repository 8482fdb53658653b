// Who is acting: the user a credential (a JWT or an API key) stands for, in the organization
// it names. Every use case takes one; the transports (HTTP, WebSocket) produce it.
import type { Role } from '../organizations/membership.entity.js';

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
