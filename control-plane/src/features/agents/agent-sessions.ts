// Which agents are online, for every replica of the control plane: each open agent stream is
// a row owned by the replica that holds it, and it counts only while that replica's lease
// is alive. A replica that dies (kill -9, a lost host) leaves nothing online past its lease.
export interface OnlineAgent {
  sessionId: string;
  agentId: string;
  location: string;
  /** null for a platform agent, which serves every organization. */
  organizationId: string | null;
}

/** An online agent and the replica holding its stream, which alone can write to it. */
export interface PlacedAgent extends OnlineAgent {
  replicaId: string;
}

export interface AgentSessions {
  /** Records this replica's new stream; an older stream of the same agent (anywhere) is superseded. */
  claim(session: OnlineAgent): Promise<void>;
  release(sessionId: string): Promise<void>;
  /** The agents online in these locations, on any live replica. */
  online(locations: string[]): Promise<OnlineAgent[]>;
  /** Which of these sessions this replica still holds (the others were superseded). */
  stillHeld(sessionIds: string[]): Promise<Set<string>>;
}

/** Finds an agent to address one request to (a test run), wherever its stream is held. */
export interface AgentLocator {
  /** The agents online in `location` on any live replica, with the replica holding each. */
  placed(location: string): Promise<PlacedAgent[]>;
}

/** May this agent run checks for this organization? Platform agents serve all; others their own. */
export function servesOrganization(agent: Pick<OnlineAgent, 'organizationId'>, organizationId: string): boolean {
  return agent.organizationId === null || agent.organizationId === organizationId;
}
