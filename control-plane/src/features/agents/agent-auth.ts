// Who may connect as an agent: the platform token (AGENT_TOKEN, or generated and kept in
// DATA_DIR) admits agents serving their location for every organization, such as the
// embedded one; an organization's registered agent serves only that organization.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AgentsRepository } from './agents.repository.js';

export type AgentIdentity =
  | { kind: 'platform' }
  | { kind: 'organization'; agentId: string; organizationId: string; location: string };

export interface AgentAuthenticator {
  verify(token: string): Promise<AgentIdentity | null>;
}

export function createAgentAuthenticator(platformToken: string, agents: Pick<AgentsRepository, 'findByToken'>): AgentAuthenticator {
  const expected = digest(platformToken);
  return {
    async verify(token) {
      if (timingSafeEqual(digest(token), expected)) return { kind: 'platform' };
      const agent = await agents.findByToken(token);
      return agent && { kind: 'organization', agentId: agent.id, organizationId: agent.organizationId, location: agent.location };
    },
  };
}

// Comparing fixed-length digests keeps the comparison constant-time whatever the length.
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
