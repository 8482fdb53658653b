// An organization's own agents (API.md "Agents and locations"): each has a token shown
// once, stored as a digest, rotatable (the previous token keeps working until revoked, so
// a running agent is not cut off mid-rotation) and revoked with the agent. Everyone reads
// them; only admins and owners create, rotate or delete them, because an agent's token
// receives the organization's check secrets in the clear.
import { randomBytes, randomUUID } from 'node:crypto';
import { notFound } from '../../errors.js';
import type { Actor } from '../auth/actor.js';
import type { OrganizationAccess } from '../organizations/organization-access.js';
import type { AgentsRepository, RegisteredAgent } from './agents.repository.js';
import type { CreateAgentInput } from './agents.schema.js';

export function newAgentToken(): string {
  return `opa_${randomBytes(32).toString('base64url')}`;
}

export function createAgentsService(agents: AgentsRepository, access: OrganizationAccess, disconnect: (agentId: string) => Promise<void>) {
  const findIn = async (organizationId: string, id: string) => {
    const agent = await agents.find(organizationId, id);
    if (!agent) throw notFound('agent');
    return agent;
  };
  return {
    async create(actor: Actor, input: CreateAgentInput): Promise<{ agent: RegisteredAgent; token: string }> {
      const organizationId = await access.resolveManaging(actor);
      const token = newAgentToken();
      const agent = await agents.insert({ id: randomUUID(), organizationId, name: input.name, location: input.location, token });
      return { agent, token };
    },
    async list(actor: Actor): Promise<RegisteredAgent[]> {
      return agents.list(await access.resolveReadable(actor));
    },
    async get(actor: Actor, id: string): Promise<RegisteredAgent> {
      return findIn(await access.resolveReadable(actor), id);
    },
    async rotateToken(actor: Actor, id: string): Promise<{ agent: RegisteredAgent; token: string }> {
      const organizationId = await access.resolveManaging(actor);
      await findIn(organizationId, id);
      const token = newAgentToken();
      await agents.rotateToken(id, token);
      return { agent: await findIn(organizationId, id), token };
    },
    async revokePreviousToken(actor: Actor, id: string): Promise<RegisteredAgent> {
      const organizationId = await access.resolveManaging(actor);
      await findIn(organizationId, id);
      await agents.revokePreviousToken(id);
      // A stream opened with the old token must not outlive it; the agent reconnects with the new one.
      await disconnect(id);
      return findIn(organizationId, id);
    },
    async remove(actor: Actor, id: string): Promise<void> {
      await findIn(await access.resolveManaging(actor), id);
      await agents.delete(id);
      await disconnect(id);
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
