// Agents as the watchdog remembers them (migration 0022), beside their live sessions
// (migration 0014). Times are the clock's, passed in, except two kept in the database's time:
// a session counts as live while its replica's lease, written in that time, has not run out
// by the database's now() (agent-sessions.repository.ts reads it the same way); and an
// agent's first_seen_at is its row's creation, compared only with services' own times
// (created_at, results) to tell whom a platform agent answers to.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import type { Sighting } from './sighting.js';

export interface ArrivedAgent {
  agentId: string;
  /** null: a platform agent. */
  organizationId: string | null;
  /** A registered agent (its row goes with the agent); false for a platform agent. */
  registered: boolean;
  location: string;
  hostname: string;
}

export interface AgentSightingsRepository {
  /** An agent connected: remembered, seen now, online again; answers whether it is new or was declared offline. */
  arrived(agent: ArrivedAgent, at: Date): Promise<boolean>;
  /** An agent's stream ended: seen until now. */
  left(agentId: string, at: Date): Promise<void>;
  /** Agents with a live session are seen at `at` (kept within `every` of it, not written every round). */
  refreshLive(tx: Tx, at: Date, every: number): Promise<void>;
  /** Forgets platform agents without a session not seen since `before`; answers how many. */
  forgetPlatform(tx: Tx, before: Date): Promise<number>;
  list(tx: Tx): Promise<Sighting[]>;
  /** Declares these agents offline at `at` unless they connected meanwhile (seen after `seenBefore`); answers those declared. */
  claimOffline(tx: Tx, agentIds: string[], at: Date, seenBefore: Date): Promise<Set<string>>;
  /** The earliest moment after `after` an agent without a session, not yet declared, falls silent. */
  nextSilence(after: Date, notBefore: Date, offlineMs: number): Promise<Date | null>;
}

// Each sighting with its session: live on a live lease; on a lease that ran out, seen until then.
const PRESENCE = `from agent_sightings a
  left join agent_sessions ss on ss.agent_id = a.agent_id
  left join control_plane_replicas r on r.id = ss.replica_id`;
const LIVE = 'coalesce(r.expires_at > now(), false)';
const LAST_SEEN = 'greatest(a.last_seen_at, case when r.expires_at <= now() then r.expires_at end)';

export function createAgentSightingsRepository(em: () => EntityManager): AgentSightingsRepository {
  return {
    async arrived(agent, at) {
      const iso = at.toISOString();
      const [row] = await em().execute<{ returned: boolean }[]>(
        `with before as (select offline_at from agent_sightings where agent_id = ?)
         insert into agent_sightings (agent_id, organization_id, registered_agent_id, location, hostname, connected_at, last_seen_at)
         values (?, ?, ?, ?, ?, ?, ?)
         on conflict (agent_id) do update set organization_id = excluded.organization_id, registered_agent_id = excluded.registered_agent_id,
           location = excluded.location, hostname = excluded.hostname, connected_at = excluded.connected_at,
           last_seen_at = greatest(agent_sightings.last_seen_at, excluded.last_seen_at), offline_at = null
         returning coalesce((select offline_at is not null from before), true) as returned`,
        [agent.agentId, agent.agentId, agent.organizationId, agent.registered ? agent.agentId : null, agent.location, agent.hostname, iso, iso],
      );
      return row?.returned === true;
    },

    async left(agentId, at) {
      await em().execute('update agent_sightings set last_seen_at = greatest(last_seen_at, ?) where agent_id = ?', [at.toISOString(), agentId]);
    },

    async refreshLive(tx, at, every) {
      await tx.execute(
        `update agent_sightings a set last_seen_at = ?, offline_at = null
           from agent_sessions ss join control_plane_replicas r on r.id = ss.replica_id
          where ss.agent_id = a.agent_id and r.expires_at > now() and (a.last_seen_at < ? or a.offline_at is not null)`,
        [at.toISOString(), new Date(at.getTime() - every).toISOString()],
      );
    },

    async forgetPlatform(tx, before) {
      const rows = await tx.execute<{ agent_id: string }[]>(
        `delete from agent_sightings a where a.organization_id is null and a.last_seen_at < ?
            and not exists (select 1 from agent_sessions ss where ss.agent_id = a.agent_id) returning a.agent_id`,
        [before.toISOString()],
      );
      return rows.length;
    },

    async list(tx) {
      const rows = await tx.execute<Record<string, unknown>[]>(
        `select a.agent_id, a.organization_id, a.location, a.first_seen_at, a.offline_at, ${LAST_SEEN} as last_seen_at, ${LIVE} as live,
                coalesce(g.name, nullif(a.hostname, ''), a.agent_id::text) as name
           ${PRESENCE} left join agents g on g.id = a.registered_agent_id`,
        [],
      );
      return rows.map(toSighting);
    },

    async claimOffline(tx, agentIds, at, seenBefore) {
      if (agentIds.length === 0) return new Set();
      const rows = await tx.execute<{ agent_id: string }[]>(
        `update agent_sightings a set offline_at = ?
          where a.agent_id = any(?::uuid[]) and a.offline_at is null and a.last_seen_at <= ?
            and not exists (select 1 from agent_sessions ss join control_plane_replicas r on r.id = ss.replica_id where ss.agent_id = a.agent_id and r.expires_at > now())
          returning a.agent_id`,
        [at.toISOString(), `{${agentIds.join(',')}}`, seenBefore.toISOString()],
      );
      return new Set(rows.map((r) => r.agent_id));
    },

    async nextSilence(after, notBefore, offlineMs) {
      const [row] = await em().execute<{ due: string | null }[]>(
        `select min(d.due) as due from (
           select greatest(${LAST_SEEN}, ?::timestamptz) + make_interval(secs => ?) as due ${PRESENCE}
            where a.offline_at is null and not ${LIVE}) d
          where d.due > ?`,
        [notBefore.toISOString(), offlineMs / 1000, after.toISOString()],
      );
      return row?.due ? new Date(row.due) : null;
    },
  };
}

function toSighting(r: Record<string, unknown>): Sighting {
  return {
    agentId: String(r.agent_id),
    organizationId: (r.organization_id as string | null) ?? null,
    name: String(r.name),
    location: String(r.location),
    firstSeenAt: new Date(r.first_seen_at as string),
    lastSeenAt: new Date(r.last_seen_at as string),
    offlineAt: r.offline_at ? new Date(r.offline_at as string) : null,
    live: r.live === true,
  };
}
