// Registered agents of organizations. Tokens are 256-bit random values, so a SHA-256 digest
// (not a slow password hash) is enough to store them and to find an agent by its token.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface RegisteredAgent {
  id: string;
  organizationId: string;
  name: string;
  location: string;
  connected: boolean;
  version: string | null;
  hostname: string | null;
  lastSeenAt: Date | null;
  hasPreviousToken: boolean;
  createdAt: Date;
}

export interface AgentsRepository {
  insert(agent: { id: string; organizationId: string; name: string; location: string; token: string }): Promise<RegisteredAgent>;
  list(organizationId: string): Promise<RegisteredAgent[]>;
  find(organizationId: string, id: string): Promise<RegisteredAgent | null>;
  delete(id: string): Promise<void>;
  /** The agent a token belongs to (current or previous token). */
  findByToken(token: string): Promise<RegisteredAgent | null>;
  rotateToken(id: string, token: string): Promise<void>;
  revokePreviousToken(id: string): Promise<void>;
  markConnected(id: string, facts: { version: string; hostname: string }): Promise<void>;
  markSeen(id: string): Promise<void>;
  markDisconnected(id: string): Promise<void>;
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

// Connected: a stream of the agent is held by a replica whose lease is alive (migration 0014).
const COLUMNS = `id, organization_id, name, location, version, hostname, last_seen_at, previous_token_hash is not null as has_previous, created_at,
  exists (select 1 from agent_sessions s join control_plane_replicas r on r.id = s.replica_id where s.agent_id = agents.id and r.expires_at > now()) as connected`;

export function createAgentsRepository(em: () => EntityManager): AgentsRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async insert(a) {
      const [row] = await run(`insert into agents (id, organization_id, name, location, token_hash) values (?, ?, ?, ?, ?) returning ${COLUMNS}`, [
        a.id, a.organizationId, a.name, a.location, tokenDigest(a.token),
      ]);
      return fromRow(row!);
    },
    async list(organizationId) {
      return (await run(`select ${COLUMNS} from agents where organization_id = ? order by created_at, id`, [organizationId])).map(fromRow);
    },
    async find(organizationId, id) {
      const [row] = await run(`select ${COLUMNS} from agents where id = ? and organization_id = ?`, [id, organizationId]);
      return row ? fromRow(row) : null;
    },
    async delete(id) {
      await run('delete from agents where id = ?', [id]);
    },
    async findByToken(token) {
      const digest = tokenDigest(token);
      const [row] = await run(`select ${COLUMNS} from agents where token_hash = ? or previous_token_hash = ?`, [digest, digest]);
      return row ? fromRow(row) : null;
    },
    async rotateToken(id, token) {
      await run('update agents set previous_token_hash = token_hash, token_hash = ?, updated_at = now() where id = ?', [tokenDigest(token), id]);
    },
    async revokePreviousToken(id) {
      await run('update agents set previous_token_hash = null, updated_at = now() where id = ?', [id]);
    },
    async markConnected(id, facts) {
      await run('update agents set version = ?, hostname = ?, last_seen_at = now() where id = ?', [facts.version, facts.hostname, id]);
    },
    async markSeen(id) {
      await run('update agents set last_seen_at = now() where id = ?', [id]);
    },
    async markDisconnected(id) {
      await run('update agents set last_seen_at = now() where id = ?', [id]);
    },
  };
}

function fromRow(r: Record<string, unknown>): RegisteredAgent {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    name: String(r.name),
    location: String(r.location),
    connected: Boolean(r.connected),
    version: (r.version as string | null) ?? null,
    hostname: (r.hostname as string | null) ?? null,
    lastSeenAt: r.last_seen_at ? new Date(r.last_seen_at as string) : null,
    hasPreviousToken: Boolean(r.has_previous),
    createdAt: new Date(r.created_at as string),
  };
}
