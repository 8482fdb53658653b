import type { EntityManager } from '@mikro-orm/postgresql';
import type { Role } from '../organizations/membership.entity.js';

export interface ApiKey {
  id: string;
  organizationId: string;
  createdBy: string;
  name: string;
  role: Role;
  prefix: string;
  /** Null: everything the role allows. */
  scopes: string[] | null;
  expiresAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface ApiKeysRepository {
  insert(key: Omit<ApiKey, 'createdAt' | 'lastUsedAt'> & { keyHash: string }): Promise<ApiKey>;
  list(organizationId: string): Promise<ApiKey[]>;
  find(organizationId: string, id: string): Promise<ApiKey | null>;
  findByPrefix(prefix: string): Promise<(ApiKey & { keyHash: string }) | null>;
  delete(id: string): Promise<void>;
  touch(id: string): Promise<void>;
}

const COLUMNS = 'id, organization_id, created_by, name, role, prefix, scopes, expires_at, created_at, last_used_at';

export function createApiKeysRepository(em: () => EntityManager): ApiKeysRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async insert(k) {
      const [row] = await run(`insert into api_keys (id, organization_id, created_by, name, role, prefix, scopes, expires_at, key_hash) values (?, ?, ?, ?, ?, ?, ?::text[], ?, ?) returning ${COLUMNS}`, [
        k.id, k.organizationId, k.createdBy, k.name, k.role, k.prefix,
        // An array literal: knex would spread a JS array into a list. Scopes are catalogue names (no quotes or commas).
        k.scopes && `{${k.scopes.join(',')}}`,
        k.expiresAt, k.keyHash,
      ]);
      return fromRow(row!);
    },
    async list(organizationId) {
      return (await run(`select ${COLUMNS} from api_keys where organization_id = ? order by created_at, id`, [organizationId])).map(fromRow);
    },
    async find(organizationId, id) {
      const [row] = await run(`select ${COLUMNS} from api_keys where id = ? and organization_id = ?`, [id, organizationId]);
      return row ? fromRow(row) : null;
    },
    async findByPrefix(prefix) {
      const [row] = await run(`select ${COLUMNS}, key_hash from api_keys where prefix = ?`, [prefix]);
      return row ? { ...fromRow(row), keyHash: String(row.key_hash) } : null;
    },
    async delete(id) {
      await run('delete from api_keys where id = ?', [id]);
    },
    async touch(id) {
      await run('update api_keys set last_used_at = now() where id = ?', [id]);
    },
  };
}

function fromRow(r: Record<string, unknown>): ApiKey {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    createdBy: String(r.created_by),
    name: String(r.name),
    role: r.role as Role,
    prefix: String(r.prefix),
    scopes: (r.scopes as string[] | null) ?? null,
    expiresAt: r.expires_at ? new Date(r.expires_at as string) : null,
    createdAt: new Date(r.created_at as string),
    lastUsedAt: r.last_used_at ? new Date(r.last_used_at as string) : null,
  };
}
