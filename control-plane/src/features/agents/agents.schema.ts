import { z } from 'zod';
import type { RegisteredAgent } from './agents.repository.js';

export const CreateAgentInput = z.strictObject({
  name: z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200),
  location: z
    .string({ message: 'location must be a string' })
    .regex(/^[a-z0-9][a-z0-9_.-]{0,62}$/i, 'location is 1-63 letters, digits, dots, dashes or underscores'),
});
export type CreateAgentInput = z.infer<typeof CreateAgentInput>;

/** Online while its stream is open and it was heard from lately (a crashed replica cannot leave it "online"). */
const ONLINE_WITHIN_MS = 60_000;

export function toAgentJson(a: RegisteredAgent, now: Date) {
  const online = a.connected && a.lastSeenAt !== null && now.getTime() - a.lastSeenAt.getTime() < ONLINE_WITHIN_MS;
  return {
    id: a.id,
    organization_id: a.organizationId,
    name: a.name,
    location: a.location,
    status: online ? 'online' : 'offline',
    version: a.version,
    hostname: a.hostname,
    last_seen_at: a.lastSeenAt?.toISOString() ?? null,
    previous_token_active: a.hasPreviousToken,
    created_at: a.createdAt.toISOString(),
  };
}

export const AgentJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    location: z.string(),
    status: z.enum(['online', 'offline']),
    version: z.string().nullable(),
    hostname: z.string().nullable(),
    last_seen_at: z.iso.datetime().nullable(),
    previous_token_active: z.boolean().meta({ description: 'The token before the last rotation is still accepted' }),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'Agent' });

/** The registration token is shown once, when it is made. */
export const AgentWithTokenJson = AgentJson.extend({ token: z.string() }).meta({ id: 'AgentWithToken' });
