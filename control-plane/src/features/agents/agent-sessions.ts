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

export interface AgentSessions {
  /** Records this replica's new stream; an older stream of the same agent (anywhere) is superseded. */
  claim(session: OnlineAgent): Promise<void>;
  release(sessionId: string): Promise<void>;
  /** The agents online in these locations, on any live replica. */
  online(locations: string[]): Promise<OnlineAgent[]>;
  /** Which of these sessions this replica still holds (the others were superseded). */
  stillHeld(sessionIds: string[]): Promise<Set<string>>;
}
