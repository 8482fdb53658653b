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

const InstallCommandsJson = z
  .object({
    server: z.string().meta({ description: 'The gRPC address the commands give the agent: PUBLIC_GRPC_ADDRESS, else the host name of this request and GRPC_PORT' }),
    deb: z.array(z.string()).meta({ description: 'Run in order on the agent host, beside outpost-agent_<version>_amd64.deb (npm run build:agent): installs the package, writes the token to /etc/outpost-agent/agent.env and starts the service' }),
    checkout: z.array(z.string()).meta({ description: 'The same from an Outpost checkout: builds it and installs a systemd unit that runs it' }),
  })
  .meta({ id: 'AgentInstallCommands', description: 'Shell commands (POSIX quoting) that install and start this agent with this token; --insecure is added when the gRPC endpoint has no TLS and the address is not loopback' });

/** The registration token is shown once, when it is made, with the commands that use it. */
export const AgentWithTokenJson = AgentJson.extend({ token: z.string(), install_commands: InstallCommandsJson }).meta({ id: 'AgentWithToken' });
