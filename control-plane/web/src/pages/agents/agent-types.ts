// An agent as GET /agents answers it (the token only in the answer that creates or rotates it).
export interface Agent {
  id: string;
  organization_id: string;
  name: string;
  location: string;
  status: 'online' | 'offline';
  version: string | null;
  hostname: string | null;
  last_seen_at: string | null;
  /** After a rotation the old token still works until it is revoked. */
  previous_token_active: boolean;
  created_at: string;
}

export interface AgentWithToken extends Agent {
  token: string;
  /** Shell commands that install and start this agent with this token. */
  install_commands: { server: string; deb: string[]; checkout: string[] };
}

/** The location the control plane's own agent checks from, for every organization. */
export const EMBEDDED_LOCATION = 'local';

/** Agents are re-read this often so that online/offline follows reality without a reload. */
export const AGENT_REFRESH_MS = 15_000;
