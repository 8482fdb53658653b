// Who may connect as an agent. For now one platform token (AGENT_TOKEN, or generated and
// kept in DATA_DIR) admits agents that serve their location for every organization.
import { createHash, timingSafeEqual } from 'node:crypto';

export interface AgentIdentity {
  kind: 'platform';
}

export interface AgentAuthenticator {
  verify(token: string): AgentIdentity | null;
}

export function createAgentAuthenticator(platformToken: string): AgentAuthenticator {
  const expected = digest(platformToken);
  return {
    verify: (token) => (timingSafeEqual(digest(token), expected) ? { kind: 'platform' } : null),
  };
}

// Comparing fixed-length digests keeps the comparison constant-time whatever the length.
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
