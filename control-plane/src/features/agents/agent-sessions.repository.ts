// The agent sessions of every replica, in PostgreSQL (migration 0014). A session counts as
// online only while the lease of the replica holding it is alive.
import type { Query } from '../../db/pooled-sql.js';
import type { AgentLocator, AgentSessions, PlacedAgent } from './agent-sessions.js';

interface SessionRow {
  session_id: string;
  agent_id: string;
  location: string;
  organization_id: string | null;
  replica_id: string;
}

export function createAgentSessionsRepository(query: Query, replicaId: string): AgentSessions & AgentLocator {
  const online = async (locations: string[]): Promise<PlacedAgent[]> => {
    if (locations.length === 0) return [];
    const rows = await query<SessionRow>(
      `select s.session_id, s.agent_id, s.location, s.organization_id, s.replica_id from agent_sessions s
         join control_plane_replicas r on r.id = s.replica_id
        where s.location = any($1) and r.expires_at > now()`,
      [locations],
    );
    return rows.map(toPlaced);
  };
  return {
    async claim(s) {
      await query(
        `insert into agent_sessions (agent_id, session_id, replica_id, location, organization_id) values ($1, $2, $3, $4, $5)
         on conflict (agent_id) do update set session_id = excluded.session_id, replica_id = excluded.replica_id,
           location = excluded.location, organization_id = excluded.organization_id, connected_at = now()`,
        [s.agentId, s.sessionId, replicaId, s.location, s.organizationId],
      );
    },
    async release(sessionId) {
      await query('delete from agent_sessions where session_id = $1', [sessionId]);
    },
    online,
    placed: (location) => online([location]),
    async stillHeld(sessionIds) {
      if (sessionIds.length === 0) return new Set();
      const rows = await query<{ session_id: string }>('select session_id from agent_sessions where session_id = any($1::uuid[]) and replica_id = $2', [sessionIds, replicaId]);
      return new Set(rows.map((r) => r.session_id));
    },
  };
}

function toPlaced(r: SessionRow): PlacedAgent {
  return { sessionId: r.session_id, agentId: r.agent_id, location: r.location, organizationId: r.organization_id, replicaId: r.replica_id };
}
